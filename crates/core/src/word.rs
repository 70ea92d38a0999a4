//! The machine word of the simulated target.
//!
//! Every algorithm is generic over its word so that the same source runs with
//! 64-bit arithmetic (what users see natively) and with wasm32's 32-bit
//! arithmetic: `checked_add`/`checked_sub` overflow at the target's width,
//! exactly as `usize` does on that target.

use core::fmt::Debug;
use core::ops::{Add, BitAnd, Not, Sub};

/// An unsigned machine word (`u32` or `u64`) used as a simulated `usize`.
pub trait Word:
    Copy
    + Ord
    + Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + BitAnd<Output = Self>
    + Not<Output = Self>
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// The largest value, `usize::MAX` of the target.
    const MAX: Self;
    /// `isize::MAX` of the target: the bound `Layout` puts on a rounded size.
    const ISIZE_MAX: Self;
    const BITS: u32;

    fn checked_add(self, rhs: Self) -> Option<Self>;
    fn checked_sub(self, rhs: Self) -> Option<Self>;
    fn wrapping_sub(self, rhs: Self) -> Self;
    fn wrapping_add(self, rhs: Self) -> Self;
    /// Widens to `u64` (lossless for both targets).
    fn to_u64(self) -> u64;
    /// Narrows from `u64`; `None` when the value does not fit the target.
    fn from_u64(v: u64) -> Option<Self>;
    /// Narrows from `u64`, keeping the low bits: for values already checked to fit.
    fn truncate(v: u64) -> Self;
}

/// A model's constant as a target word. Every constant the models use fits
/// a 32-bit `usize`; after inlining the check folds away.
#[inline(always)]
pub fn word<W: Word>(v: u64) -> W {
    match W::from_u64(v) {
        Some(w) => w,
        None => unreachable!("a model's constants fit the target's usize"),
    }
}

macro_rules! impl_word {
    ($t:ty, $i:ty) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MAX: Self = <$t>::MAX;
            const ISIZE_MAX: Self = <$i>::MAX as $t;
            const BITS: u32 = <$t>::BITS;

            #[inline(always)]
            fn checked_add(self, rhs: Self) -> Option<Self> {
                <$t>::checked_add(self, rhs)
            }
            #[inline(always)]
            fn checked_sub(self, rhs: Self) -> Option<Self> {
                <$t>::checked_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$t>::wrapping_sub(self, rhs)
            }
            #[inline(always)]
            fn wrapping_add(self, rhs: Self) -> Self {
                <$t>::wrapping_add(self, rhs)
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_u64(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn truncate(v: u64) -> Self {
                v as $t
            }
        }
    };
}

impl_word!(u32, i32);
impl_word!(u64, i64);

/// Which machine the simulation models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// 64-bit pointers (x86-64, aarch64): the default.
    #[serde(rename = "64")]
    W64,
    /// wasm32: 32-bit pointers.
    #[serde(rename = "wasm32")]
    Wasm32,
}

impl Target {
    pub const ALL: [Target; 2] = [Target::W64, Target::Wasm32];

    pub fn name(self) -> &'static str {
        match self {
            Target::W64 => "64",
            Target::Wasm32 => "wasm32",
        }
    }

    pub fn parse(s: &str) -> Option<Target> {
        match s {
            "64" | "64-bit" | "x86_64" | "x86-64" => Some(Target::W64),
            "wasm32" | "32" => Some(Target::Wasm32),
            _ => None,
        }
    }

    /// `size_of::<usize>()` on the target.
    pub fn usize_bytes(self) -> u64 {
        match self {
            Target::W64 => 8,
            Target::Wasm32 => 4,
        }
    }
}
