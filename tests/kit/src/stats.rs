//! The statistics of every report (the stress report natively and in the browser, the
//! frame figures of the benches): one definition of each figure.
//!
//! - **median**: the middle value of the sorted samples; for an even count, the mean of the
//!   two middle values.
//! - **p95, p99**: nearest rank: the smallest sample with at least `p` of the samples at or
//!   below it, i.e. `sorted[ceil(p * n) - 1]` (p95 of 20 samples is the 19th smallest, of
//!   10 samples the 10th).
//! - **warm-up**: [`Samples`] keeps the first `warmup` values apart from the measured ones;
//!   every figure is over the measured values alone.

/// The figures of a set of samples. All 0 for no samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Samples.
    pub count: usize,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median: the mean of the two middle values for an even count.
    pub median: f64,
    /// 95th percentile, nearest rank.
    pub p95: f64,
    /// 99th percentile, nearest rank.
    pub p99: f64,
}

impl Summary {
    /// The figures of `samples`, in any order.
    pub fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Self {
            count: sorted.len(),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
            median: median(&sorted),
            p95: nearest_rank(&sorted, 0.95),
            p99: nearest_rank(&sorted, 0.99),
        }
    }
}

/// The median of `sorted` (ascending): the middle value, or the mean of the two middle values
/// for an even count; 0 for none.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The nearest-rank percentile `p` (0..=1) of `sorted` (ascending): `sorted[ceil(p * n) - 1]`,
/// the first sample for `p` 0; 0 for none.
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Samples taken one by one, the first `warmup` of them kept apart as warm-up.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    warmup: usize,
    warm: Vec<f64>,
    measured: Vec<f64>,
}

impl Samples {
    /// No samples yet; the first `warmup` pushed are warm-up.
    pub fn new(warmup: usize) -> Self {
        Self { warmup, ..Self::default() }
    }

    /// Whether the next sample is a warm-up one.
    pub fn in_warmup(&self) -> bool {
        self.warm.len() < self.warmup
    }

    /// Adds a sample; returns whether it was a warm-up one.
    pub fn push(&mut self, value: f64) -> bool {
        let warm = self.in_warmup();
        if warm {
            self.warm.push(value);
        } else {
            self.measured.push(value);
        }
        warm
    }

    /// The warm-up samples so far.
    pub fn warmup(&self) -> &[f64] {
        &self.warm
    }

    /// The samples after the warm-up.
    pub fn measured(&self) -> &[f64] {
        &self.measured
    }

    /// The figures of the measured samples.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.measured)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_an_odd_count_is_the_middle_value() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(Summary::of(&[9.0, 1.0, 2.0]).median, 2.0);
        assert_eq!(median(&[5.0]), 5.0);
    }

    #[test]
    fn median_of_an_even_count_is_the_mean_of_the_two_middle_values() {
        assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), 3.0);
        assert_eq!(Summary::of(&[10.0, 4.0, 1.0, 2.0]).median, 3.0);
        assert_eq!(median(&[1.0, 2.0]), 1.5);
    }

    #[test]
    fn p95_is_the_nearest_rank() {
        // 20 samples 1..=20: ceil(0.95 * 20) = 19.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(Summary::of(&v).p95, 19.0);
        // 10 samples: ceil(9.5) = 10, the largest.
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(Summary::of(&v).p95, 10.0);
        // 100 samples: the 95th and the 99th.
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let s = Summary::of(&v);
        assert_eq!((s.p95, s.p99), (95.0, 99.0));
        assert_eq!(nearest_rank(&[3.0, 4.0], 0.0), 3.0);
    }

    #[test]
    fn min_max_mean_and_no_samples() {
        let s = Summary::of(&[2.0, 8.0, 5.0]);
        assert_eq!((s.count, s.min, s.max, s.mean), (3, 2.0, 8.0, 5.0));
        assert_eq!(Summary::of(&[]), Summary::default());
        assert_eq!(Summary::of(&[]).count, 0);
    }

    #[test]
    fn warmup_samples_are_kept_apart() {
        let mut s = Samples::new(2);
        assert!(s.in_warmup());
        assert!(s.push(100.0));
        assert!(s.push(50.0));
        assert!(!s.in_warmup());
        assert!(!s.push(1.0));
        assert!(!s.push(3.0));
        assert_eq!(s.warmup(), &[100.0, 50.0]);
        assert_eq!(s.measured(), &[1.0, 3.0]);
        let sum = s.summary();
        assert_eq!((sum.count, sum.median, sum.max), (2, 2.0, 3.0));
        let mut none = Samples::new(0);
        assert!(!none.push(7.0));
        assert_eq!(none.summary().median, 7.0);
    }
}
