//! Rate limiters deciding how long a failed item waits: client-go's per-item exponential
//! backoff, token bucket, max-of, and the default controller limiter built from them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::queue::QueueKey;

/// Decides the delay of each retry of an item, like client-go's `TypedRateLimiter`.
pub trait RateLimiter<T>: Send + Sync {
    /// How long `item` waits before it is processed again; counts as one more retry.
    fn when(&self, item: &T) -> Duration;
    /// Forgets the retries of `item` (it succeeded, or was given up on).
    fn forget(&self, item: &T);
    /// How many times `item` has been retried since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

fn lock<V>(mutex: &Mutex<V>) -> std::sync::MutexGuard<'_, V> {
    // The guarded maps are always consistent between statements, so a poisoned lock is usable.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `base · 2^retries`, capped at `max`; retries count per item until forgotten.
pub struct ItemExponentialFailure<T> {
    base: Duration,
    max: Duration,
    failures: Mutex<HashMap<T, u32>>,
}

impl<T> ItemExponentialFailure<T> {
    /// A limiter starting at `base` and never waiting longer than `max`.
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: QueueKey> RateLimiter<T> for ItemExponentialFailure<T> {
    fn when(&self, item: &T) -> Duration {
        let mut failures = lock(&self.failures);
        let exponent = failures.entry(item.clone()).or_insert(0);
        let retries = *exponent;
        *exponent = exponent.saturating_add(1);
        // Past 2^63 ns the delay is beyond any cap, as client-go's float comparison finds.
        let factor = 2u128.checked_pow(retries).unwrap_or(u128::MAX);
        let nanos = self.base.as_nanos().saturating_mul(factor);
        if nanos >= self.max.as_nanos() {
            self.max
        } else {
            Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
        }
    }

    fn forget(&self, item: &T) {
        lock(&self.failures).remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        lock(&self.failures).get(item).copied().unwrap_or(0)
    }
}

/// A token bucket shared by all items (`golang.org/x/time/rate` reservations): `qps` tokens per
/// second, at most `burst` saved; an item that finds no token waits until one accrues.
pub struct TokenBucket {
    qps: f64,
    burst: f64,
    state: Mutex<(f64, Instant)>,
}

impl TokenBucket {
    /// A full bucket of `burst` tokens refilled at `qps` per second.
    pub fn new(qps: f64, burst: u32) -> Self {
        Self {
            qps,
            burst: f64::from(burst),
            state: Mutex::new((f64::from(burst), Instant::now())),
        }
    }
}

impl<T> RateLimiter<T> for TokenBucket {
    fn when(&self, _: &T) -> Duration {
        let mut state = lock(&self.state);
        let now = Instant::now();
        let (tokens, last) = *state;
        let refilled = (tokens + now.saturating_duration_since(last).as_secs_f64() * self.qps).min(self.burst);
        let left = refilled - 1.0;
        *state = (left, now);
        if left >= 0.0 || self.qps <= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-left / self.qps)
        }
    }

    fn forget(&self, _: &T) {}

    fn num_requeues(&self, _: &T) -> u32 {
        0
    }
}

/// The longest delay of several limiters; every limiter counts every retry.
pub struct MaxOf<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> MaxOf<T> {
    /// Combines `limiters`.
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOf<T> {
    fn when(&self, item: &T) -> Duration {
        self.limiters.iter().map(|l| l.when(item)).max().unwrap_or_default()
    }

    fn forget(&self, item: &T) {
        self.limiters.iter().for_each(|l| l.forget(item));
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.limiters.iter().map(|l| l.num_requeues(item)).max().unwrap_or(0)
    }
}

/// client-go's `DefaultTypedControllerRateLimiter`: per-item 5 ms · 2^n up to 1000 s, and an
/// overall 10 qps with bursts of 100.
pub fn default_controller_rate_limiter<T: QueueKey>() -> MaxOf<T> {
    MaxOf::new(vec![
        Box::new(ItemExponentialFailure::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(TokenBucket::new(10.0, 100)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_backoff_should_double_up_to_its_cap_per_item() {
        let limiter = ItemExponentialFailure::new(Duration::from_millis(5), Duration::from_secs(1000));
        let delays: Vec<Duration> = (0..4).map(|_| limiter.when(&"a")).collect();
        let ms = Duration::from_millis;
        assert_eq!(delays, [ms(5), ms(10), ms(20), ms(40)]);
        assert_eq!(limiter.when(&"b"), ms(5), "items back off independently");
        assert_eq!(limiter.num_requeues(&"a"), 4);
        for _ in 0..100 {
            limiter.when(&"a");
        }
        assert_eq!(limiter.when(&"a"), Duration::from_secs(1000));
        limiter.forget(&"a");
        assert_eq!((limiter.num_requeues(&"a"), limiter.when(&"a")), (0, ms(5)));
    }

    #[tokio::test(start_paused = true)]
    async fn token_bucket_should_allow_bursts_then_pace_at_qps() {
        let bucket = TokenBucket::new(10.0, 100);
        let free = (0..100)
            .filter(|_| RateLimiter::<&str>::when(&bucket, &"x").is_zero())
            .count();
        assert_eq!(free, 100);
        let waits: Vec<Duration> = (0..3).map(|_| RateLimiter::<&str>::when(&bucket, &"x")).collect();
        let ms = Duration::from_millis;
        assert_eq!(waits.iter().map(|d| d.as_millis()).collect::<Vec<_>>(), [100, 200, 300]);
        tokio::time::advance(ms(1000)).await;
        // Ten tokens accrued, three of them already promised: seven come free again.
        let free = (0..10)
            .filter(|_| RateLimiter::<&str>::when(&bucket, &"x").is_zero())
            .count();
        assert_eq!(free, 7);
    }

    #[tokio::test(start_paused = true)]
    async fn default_limiter_should_take_the_longer_of_both() {
        let limiter = default_controller_rate_limiter::<&str>();
        assert_eq!(limiter.when(&"a"), Duration::from_millis(5));
        for _ in 0..200 {
            limiter.when(&"b");
        }
        // The bucket is empty now: even a fresh item waits for a token.
        assert!(limiter.when(&"c") > Duration::from_millis(5));
        assert_eq!(limiter.num_requeues(&"b"), 200);
    }
}
