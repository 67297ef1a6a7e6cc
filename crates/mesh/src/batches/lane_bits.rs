//! Sets of a packet's lanes as bits: whether a set holds enough lanes ([`at_least`]), and
//! each lane of a set in turn ([`for_each_lane`]).

/// Whether `lanes` has at least `count` bits set: the lowest `count - 1` cleared, something is
/// left. Cheaper than `count_ones`, which without the `popcnt` instruction (not in the
/// baseline x86-64 a plain build targets) is a dozen operations.
#[inline(always)]
pub(crate) fn at_least(mut lanes: u32, count: u32) -> bool {
    for _ in 1..count {
        lanes &= lanes.wrapping_sub(1);
    }
    lanes != 0
}

/// Calls `f` with each set bit's index of `lanes`, lowest first.
#[inline]
pub(crate) fn for_each_lane(mut lanes: u32, mut f: impl FnMut(usize)) {
    while lanes != 0 {
        f(lanes.trailing_zeros() as usize);
        lanes &= lanes - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_counts_bits() {
        for bits in 0..=0x1ffu32 {
            for count in 1..=9 {
                assert_eq!(
                    at_least(bits, count),
                    bits.count_ones() >= count,
                    "{bits:b} {count}"
                );
            }
        }
    }
}
