//! Fixed-width bit sets behind one trait, so a bitboard is written once for every board
//! size: `u64` and `u128` as they are, and [`Bits192`] (three words, carries and borrows
//! across them) for boards past 128 bits (Connect Four up to 12 × 12 with its sentinels).

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// A fixed-width bit set with the operations the bitboard needs.
pub trait BitWord:
    Copy
    + Eq
    + Default
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const BITS: u32;
    fn zero() -> Self;
    /// The set `{i}`; `i < BITS`.
    fn bit(i: u32) -> Self;
    fn is_zero(self) -> bool;
    fn count_ones(self) -> u32;
    /// Index of the lowest set bit, `BITS` when empty.
    fn trailing_zeros(self) -> u32;
    /// Addition modulo 2^BITS, carrying across words.
    fn wrapping_add(self, other: Self) -> Self;
    /// Subtraction modulo 2^BITS, borrowing across words.
    fn wrapping_sub(self, other: Self) -> Self;
    /// `self` without its lowest set bit (`x & (x - 1)`).
    fn clear_lowest(self) -> Self;

    /// Whether bit `i` is set.
    #[inline]
    fn has(self, i: u32) -> bool {
        !(self & Self::bit(i)).is_zero()
    }

    /// The lowest `n` bits set, `n <= BITS`.
    #[inline]
    fn ones(n: u32) -> Self {
        if n >= Self::BITS {
            !Self::zero()
        } else {
            Self::bit(n).wrapping_sub(Self::bit(0))
        }
    }
}

macro_rules! prim_bitword {
    ($t:ty) => {
        impl BitWord for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn bit(i: u32) -> Self {
                1 << i
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline(always)]
            fn clear_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}

prim_bitword!(u64);
prim_bitword!(u128);

/// 192 bits, for boards wider/taller than a u64 holds (up to 12 × 12 with sentinels).
/// Word 0 holds bits 0..64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits192(pub [u64; 3]);

impl BitAnd for Bits192 {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, o: Self) -> Self {
        Bits192([self.0[0] & o.0[0], self.0[1] & o.0[1], self.0[2] & o.0[2]])
    }
}

impl BitOr for Bits192 {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, o: Self) -> Self {
        Bits192([self.0[0] | o.0[0], self.0[1] | o.0[1], self.0[2] | o.0[2]])
    }
}

impl BitXor for Bits192 {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, o: Self) -> Self {
        Bits192([self.0[0] ^ o.0[0], self.0[1] ^ o.0[1], self.0[2] ^ o.0[2]])
    }
}

impl Not for Bits192 {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Bits192([!self.0[0], !self.0[1], !self.0[2]])
    }
}

impl Shl<u32> for Bits192 {
    type Output = Self;
    #[inline]
    fn shl(self, n: u32) -> Self {
        let [a, b, c] = self.0;
        if n == 0 {
            self
        } else if n < 64 {
            let m = 64 - n;
            Bits192([a << n, (b << n) | (a >> m), (c << n) | (b >> m)])
        } else if n == 64 {
            Bits192([0, a, b])
        } else if n < 128 {
            let n = n - 64;
            Bits192([0, a << n, (b << n) | (a >> (64 - n))])
        } else if n < 192 {
            Bits192([0, 0, a << (n - 128)])
        } else {
            Bits192([0; 3])
        }
    }
}

impl Shr<u32> for Bits192 {
    type Output = Self;
    #[inline]
    fn shr(self, n: u32) -> Self {
        let [a, b, c] = self.0;
        if n == 0 {
            self
        } else if n < 64 {
            let m = 64 - n;
            Bits192([(a >> n) | (b << m), (b >> n) | (c << m), c >> n])
        } else if n == 64 {
            Bits192([b, c, 0])
        } else if n < 128 {
            let n = n - 64;
            Bits192([(b >> n) | (c << (64 - n)), c >> n, 0])
        } else if n < 192 {
            Bits192([c >> (n - 128), 0, 0])
        } else {
            Bits192([0; 3])
        }
    }
}

impl BitWord for Bits192 {
    const BITS: u32 = 192;
    #[inline(always)]
    fn zero() -> Self {
        Bits192([0; 3])
    }
    #[inline]
    fn bit(i: u32) -> Self {
        debug_assert!(i < 192);
        let mut w = [0; 3];
        w[(i / 64) as usize] = 1 << (i % 64);
        Bits192(w)
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2]) == 0
    }
    #[inline(always)]
    fn count_ones(self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones() + self.0[2].count_ones()
    }
    #[inline]
    fn trailing_zeros(self) -> u32 {
        if self.0[0] != 0 {
            self.0[0].trailing_zeros()
        } else if self.0[1] != 0 {
            64 + self.0[1].trailing_zeros()
        } else {
            128 + self.0[2].trailing_zeros()
        }
    }
    #[inline]
    fn wrapping_add(self, o: Self) -> Self {
        let (r0, c0) = self.0[0].overflowing_add(o.0[0]);
        let (r1, c1a) = self.0[1].overflowing_add(o.0[1]);
        let (r1, c1b) = r1.overflowing_add(c0 as u64);
        let r2 = self.0[2].wrapping_add(o.0[2]).wrapping_add((c1a | c1b) as u64);
        Bits192([r0, r1, r2])
    }
    #[inline]
    fn wrapping_sub(self, o: Self) -> Self {
        let (r0, b0) = self.0[0].overflowing_sub(o.0[0]);
        let (r1, b1a) = self.0[1].overflowing_sub(o.0[1]);
        let (r1, b1b) = r1.overflowing_sub(b0 as u64);
        let r2 = self.0[2].wrapping_sub(o.0[2]).wrapping_sub((b1a | b1b) as u64);
        Bits192([r0, r1, r2])
    }
    #[inline]
    fn clear_lowest(self) -> Self {
        let [a, b, c] = self.0;
        if a != 0 {
            Bits192([a & (a - 1), b, c])
        } else if b != 0 {
            Bits192([a, b & (b - 1), c])
        } else {
            Bits192([a, b, c & c.wrapping_sub(1)])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use rand::{Rng as _, RngExt, SeedableRng};

    #[test]
    fn bits192_arithmetic_matches_u128_on_the_low_bits() {
        let mut rng = Rng::seed_from_u64(5);
        for round in 0..2000 {
            let a = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
            let b = ((rng.next_u64() as u128) << 64) | rng.next_u64() as u128;
            let to = |x: u128, hi: u64| Bits192([x as u64, (x >> 64) as u64, hi]);
            let low = |x: Bits192| (x.0[0] as u128) | ((x.0[1] as u128) << 64);
            let (x, y) = (to(a, 0), to(b, 0));
            assert_eq!(low(x.wrapping_add(y)), a.wrapping_add(b));
            assert_eq!(x.wrapping_add(y).0[2], a.checked_add(b).is_none() as u64);
            assert_eq!(low(x.wrapping_sub(y)), a.wrapping_sub(b));
            assert_eq!(low(x.clear_lowest()), a & a.wrapping_sub(1));
            assert_eq!(x.trailing_zeros(), if a == 0 { 192 } else { a.trailing_zeros() });
            let n = rng.random_range(..128u32);
            assert_eq!(low(x << n), a << n);
            assert_eq!(low(x >> n), a >> n);
            if round >= 20 {
                continue;
            }
            // Bits shifted out of the top 64-bit word of u128 land in word 2.
            let hi = rng.next_u64();
            let z = to(a, hi);
            for n in [1, 13, 63, 64, 65, 100, 128, 150, 191] {
                for i in 0..192 {
                    let want = i >= n && z.has(i - n);
                    assert_eq!((z << n).has(i), want, "shl {n} bit {i}");
                    let want = i + n < 192 && z.has(i + n);
                    assert_eq!((z >> n).has(i), want, "shr {n} bit {i}");
                }
            }
        }
        assert_eq!(Bits192::ones(192), Bits192([u64::MAX; 3]));
        assert_eq!(Bits192::ones(70), Bits192([u64::MAX, 63, 0]));
    }
}
