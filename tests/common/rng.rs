//! xorshift64*: small, seeded, reproducible random choices for the
//! differential tests' generators.

pub struct Rng(pub u64);

impl Rng {
    /// A generator for `seed`, every seed its own sequence (splitmix64 of
    /// the seed; never the zero state xorshift cannot leave).
    // Not every test binary that includes this file seeds this way.
    #[allow(dead_code)]
    pub fn seeded(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
    #[allow(dead_code)] // not every test that shares the generator uses it
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}
