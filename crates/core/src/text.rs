//! Counts as the messages write them: `1 byte`, `24 bytes`. Every sentence
//! that states a count of bytes goes through here, so none says "1 bytes".

/// `n` and the noun, singular when `n` is 1: `plural(1, "block")` is
/// `1 block`, `plural(3, "block")` is `3 blocks`.
pub fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `1 byte`, `0 bytes`, `24 bytes`.
pub fn bytes(n: u64) -> String {
    plural(n, "byte")
}

/// `1,600,000`: the digits in groups of three.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_byte_is_singular_and_every_other_count_plural() {
        assert_eq!(bytes(1), "1 byte");
        assert_eq!(bytes(2), "2 bytes");
        assert_eq!(bytes(0), "0 bytes");
        assert_eq!(plural(1, "block"), "1 block");
        assert_eq!(plural(2, "block"), "2 blocks");
    }
}
