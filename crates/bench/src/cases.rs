//! The cases of bump-scope's callgrind benches (the seed 002 table), one
//! entry function per (case, library).
//!
//! As there: each entry is `#[inline(never)]` with an unmangled name
//! (`bumplab_bench__<case>__<library>`, set with `export_name`), its body
//! is only the operation, and its runner does the setup, then calls it with
//! every argument and the result passed through `black_box`. Callgrind
//! collects only while the entry runs, so a count includes the entry's own
//! prologue and epilogue (push/pop/ret) and whatever it calls.

use core::alloc::Layout;

/// One entry function: what the driver lists and runs.
pub struct Entry {
    pub case: &'static str,
    pub lib: &'static str,
    pub symbol: &'static str,
    /// The allocator's minimum alignment in this case (1: none).
    pub min_align: usize,
    pub run: fn(),
}

/// A big value: seven words, as in bump-scope's benches.
#[derive(Clone, Copy)]
pub struct BigStruct(#[allow(dead_code)] [u64; 7]);

impl BigStruct {
    fn new() -> Self {
        BigStruct([0; 7])
    }
}

const U8_SLICE: &[u8] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
const U32_SLICE: &[u32] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];

/// The concrete type of library `$lib` with a minimum alignment of `$m`.
/// The seed algorithms without a minimum alignment exist only for 1.
macro_rules! lib_ty {
    (bumpalo, $m:literal) => { crate::libs::Bumpalo<$m> };
    (bump_scope_up, $m:literal) => { crate::libs::BumpScope<$m, true> };
    (bump_scope_down, $m:literal) => { crate::libs::BumpScope<$m, false> };
    (blink_alloc, 1) => { crate::libs::Blink };
    (fitzgen_down, 1) => {
        crate::libs::Ours<bumplab_core::models::fixed::Fixed<u64,
            bumplab_core::algorithms::bump_down::BumpDown<u64>>>
    };
    (hinckley_up_naive, 1) => {
        crate::libs::Ours<bumplab_core::models::fixed::Fixed<u64,
            bumplab_core::algorithms::bump_up_naive::BumpUpNaive<u64>>>
    };
    (hinckley_up, 1) => {
        crate::libs::Ours<bumplab_core::models::fixed::Fixed<u64,
            bumplab_core::algorithms::bump_up::BumpUp<u64>>>
    };
    (up_min_align, $m:literal) => {
        crate::libs::Ours<bumplab_core::models::fixed::Fixed<u64,
            bumplab_core::algorithms::min_align_up::MinAlignUp<u64, $m>>>
    };
    (down_min_align, $m:literal) => {
        crate::libs::Ours<bumplab_core::models::fixed::Fixed<u64,
            bumplab_core::algorithms::min_align_down::MinAlignDown<u64, $m>>>
    };
    (model_bumpalo, $m:literal) => {
        crate::libs::Ours<bumplab_core::models::bumpalo::Bumpalo<u64, $m>>
    };
    (model_bump_scope_up, $m:literal) => {
        crate::libs::Ours<bumplab_core::models::bump_scope::BumpScope<u64, true, $m>>
    };
    (model_bump_scope_down, $m:literal) => {
        crate::libs::Ours<bumplab_core::models::bump_scope::BumpScope<u64, false, $m>>
    };
}

/// One (case, library): the entry function and its runner.
macro_rules! bench_one {
    ($case:ident $lib:ident {
        min_align: $m:tt;
        setup($run:ident) $setup:block
        entry $(<$lt:lifetime>)? ($($p:ident : $t:ty),*) $(-> $ret:ty)? $body:block
    }) => {
        pub mod $lib {
            #[allow(unused_imports)]
            use super::super::*;
            #[allow(unused_imports)]
            use crate::libs::Lib;

            pub const MIN_ALIGN: usize = $m;
            pub type Bump = lib_ty!($lib, $m);
            #[allow(dead_code)]
            pub type Ptr = <Bump as Lib>::Ptr;

            #[inline(never)]
            #[export_name = concat!("bumplab_bench__", stringify!($case), "__", stringify!($lib))]
            #[allow(clippy::needless_lifetimes)]
            pub fn entry $(<$lt>)? ($($p: $t),*) $(-> $ret)? $body

            #[allow(clippy::unit_arg)]
            pub fn run() {
                let $run = |$($p),*| {
                    let _ = core::hint::black_box(entry($(core::hint::black_box($p)),*));
                };
                $setup
            }
        }
    };
}

macro_rules! benches {
    ($($case:ident [$($lib:ident),* $(,)?] $def:tt)*) => {
        $(
            pub mod $case {
                $( bench_one!($case $lib $def); )*
            }
        )*

        /// Every entry, in table order.
        pub const ENTRIES: &[Entry] = &[
            $($(
                Entry {
                    case: stringify!($case),
                    lib: stringify!($lib),
                    symbol: concat!("bumplab_bench__", stringify!($case), "__", stringify!($lib)),
                    min_align: $case::$lib::MIN_ALIGN,
                    run: $case::$lib::run,
                },
            )*)*
        ];
    };
}

benches! {
    // --- Allocation (the typed, infallible API) ----------------------------

    alloc_u8 [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u8); }
        entry<'a>(bump: &'a Bump, value: u8) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u8_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u8); }
        entry<'a>(bump: &'a Bump, value: u8) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u32 [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u32); }
        entry<'a>(bump: &'a Bump, value: u32) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u32_aligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 4;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u32); }
        entry<'a>(bump: &'a Bump, value: u32) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u32_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u32); }
        entry<'a>(bump: &'a Bump, value: u32) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u64 [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u64); }
        entry<'a>(bump: &'a Bump, value: u64) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u64_aligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u64); }
        entry<'a>(bump: &'a Bump, value: u64) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u128 [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u128); }
        entry<'a>(bump: &'a Bump, value: u128) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u128_underaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, 42u128); }
        entry<'a>(bump: &'a Bump, value: u128) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_big_struct [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, BigStruct::new()); }
        entry<'a>(bump: &'a Bump, value: BigStruct) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_big_struct_aligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, BigStruct::new()); }
        entry<'a>(bump: &'a Bump, value: BigStruct) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_big_struct_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 16;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, BigStruct::new()); }
        entry<'a>(bump: &'a Bump, value: BigStruct) -> impl Sized + 'a { bump.alloc(value) }
    }
    alloc_u8_slice [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, U8_SLICE); }
        entry<'a>(bump: &'a Bump, value: &'a [u8]) -> impl Sized + 'a { bump.alloc_slice_copy(value) }
    }
    alloc_u8_slice_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, U8_SLICE); }
        entry<'a>(bump: &'a Bump, value: &'a [u8]) -> impl Sized + 'a { bump.alloc_slice_copy(value) }
    }
    alloc_u32_slice [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, U32_SLICE); }
        entry<'a>(bump: &'a Bump, value: &'a [u32]) -> impl Sized + 'a { bump.alloc_slice_copy(value) }
    }
    alloc_u32_slice_aligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 4;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, U32_SLICE); }
        entry<'a>(bump: &'a Bump, value: &'a [u32]) -> impl Sized + 'a { bump.alloc_slice_copy(value) }
    }
    alloc_u32_slice_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, U32_SLICE); }
        entry<'a>(bump: &'a Bump, value: &'a [u32]) -> impl Sized + 'a { bump.alloc_slice_copy(value) }
    }

    // --- Allocator API, layout known at compile time -------------------------

    allocate [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump); }
        entry<'a>(bump: &'a Bump) -> impl Sized + 'a { bump.allocate(Layout::new::<u32>()) }
    }
    grow_same_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, Layout::new::<u32>(), Layout::new::<[u32; 2]>()) }
        }
    }
    grow_smaller_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, Layout::new::<u32>(), Layout::new::<[u16; 4]>()) }
        }
    }
    grow_larger_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, Layout::new::<u32>(), Layout::new::<u64>()) }
        }
    }
    shrink_same_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<[u32; 2]>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, Layout::new::<[u32; 2]>(), Layout::new::<u32>()) }
        }
    }
    shrink_smaller_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, Layout::new::<u32>(), Layout::new::<u16>()) }
        }
    }
    shrink_larger_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<[u16; 4]>());
            run(&bump, ptr);
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, Layout::new::<[u16; 4]>(), Layout::new::<u32>()) }
        }
    }
    deallocate [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry(bump: &Bump, ptr: Ptr) {
            unsafe { bump.deallocate(ptr, Layout::new::<u32>()) }
        }
    }
    deallocate_non_last [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr);
        }
        entry(bump: &Bump, ptr: Ptr) {
            unsafe { bump.deallocate(ptr, Layout::new::<u32>()) }
        }
    }

    // --- Allocator API, layout only known at run time ------------------------

    black_box_allocate [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              fitzgen_down, hinckley_up_naive, hinckley_up, up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, Layout::new::<u32>()); }
        entry<'a>(bump: &'a Bump, layout: Layout) -> impl Sized + 'a { bump.allocate(layout) }
    }
    black_box_allocate_overaligned [bumpalo, bump_scope_up, bump_scope_down,
              up_min_align, down_min_align,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 8;
        setup(run) { let bump = Bump::with_capacity(1024); run(&bump, Layout::new::<u32>()); }
        entry<'a>(bump: &'a Bump, layout: Layout) -> impl Sized + 'a { bump.allocate(layout) }
    }
    black_box_grow_same_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>(), Layout::new::<[u32; 2]>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, old, new) }
        }
    }
    black_box_grow_smaller_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>(), Layout::new::<[u16; 4]>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, old, new) }
        }
    }
    black_box_grow_larger_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>(), Layout::new::<u64>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.grow(ptr, old, new) }
        }
    }
    black_box_shrink_same_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<[u32; 2]>());
            run(&bump, ptr, Layout::new::<[u32; 2]>(), Layout::new::<u32>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, old, new) }
        }
    }
    black_box_shrink_smaller_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>(), Layout::new::<u16>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, old, new) }
        }
    }
    black_box_shrink_larger_align [bumpalo, bump_scope_up, bump_scope_down, blink_alloc] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<[u16; 4]>());
            run(&bump, ptr, Layout::new::<[u16; 4]>(), Layout::new::<u32>());
        }
        entry<'a>(bump: &'a Bump, ptr: Ptr, old: Layout, new: Layout) -> impl Sized + 'a {
            unsafe { bump.shrink(ptr, old, new) }
        }
    }
    black_box_deallocate [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>());
        }
        entry(bump: &Bump, ptr: Ptr, layout: Layout) {
            unsafe { bump.deallocate(ptr, layout) }
        }
    }
    black_box_deallocate_non_last [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let bump = Bump::with_capacity(1024);
            let ptr = bump.allocate_ptr(Layout::new::<u32>());
            bump.allocate_ptr(Layout::new::<u32>());
            run(&bump, ptr, Layout::new::<u32>());
        }
        entry(bump: &Bump, ptr: Ptr, layout: Layout) {
            unsafe { bump.deallocate(ptr, layout) }
        }
    }

    // --- Miscellaneous -------------------------------------------------------

    warm_up [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) { run(Bump::base()); }
        entry(base: <Bump as Lib>::Base) -> impl Sized {
            let bump = Bump::new_in(base);
            let _ = bump.alloc(0u32);
            bump
        }
    }
    reset [bumpalo, bump_scope_up, bump_scope_down, blink_alloc,
              model_bumpalo, model_bump_scope_up, model_bump_scope_down] {
        min_align: 1;
        setup(run) {
            let mut bump = Bump::with_capacity(1024);
            bump.allocate_ptr(Layout::new::<u32>());
            run(&mut bump);
        }
        entry(bump: &mut Bump) { bump.reset() }
    }
}
