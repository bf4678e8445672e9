//! xorshift64*: small, seeded, reproducible random choices for the
//! differential tests' generators.

pub struct Rng(pub u64);

impl Rng {
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
