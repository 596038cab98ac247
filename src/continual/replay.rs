//! Replay buffers for experience replay.
//!
//! * [`RingBuffer`] keeps the most recent `capacity` items (FIFO).
//! * [`Reservoir`] keeps a uniform sample of *everything seen so far*
//!   (Algorithm R, which Knuth credits to Alan Waterman; Vitter analysed it
//!   in "Random Sampling with a Reservoir", 1985): item n (1-based) enters
//!   with probability k/n,
//!   replacing a random slot, so each of the n items seen is in the buffer with
//!   probability k/n — old tasks are not crowded out by the newest one.

use crate::ml::rng::Rng;

#[derive(Debug, Clone)]
pub struct RingBuffer<T> {
    items: Vec<T>,
    capacity: usize,
    next: usize,
}

impl<T: Clone> RingBuffer<T> {
    pub fn new(capacity: usize) -> RingBuffer<T> {
        RingBuffer { items: Vec::with_capacity(capacity), capacity: capacity.max(1), next: 0 }
    }

    pub fn push(&mut self, item: T) {
        if self.items.len() < self.capacity {
            self.items.push(item);
        } else {
            self.items[self.next] = item;
        }
        self.next = (self.next + 1) % self.capacity;
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn items(&self) -> &[T] {
        &self.items
    }

    pub fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T> {
        if self.items.is_empty() {
            return Vec::new();
        }
        (0..m).map(|_| rng.choose(&self.items).clone()).collect()
    }
}

#[derive(Debug, Clone)]
pub struct Reservoir<T> {
    items: Vec<T>,
    capacity: usize,
    seen: usize,
}

impl<T: Clone> Reservoir<T> {
    pub fn new(capacity: usize) -> Reservoir<T> {
        Reservoir { items: Vec::with_capacity(capacity), capacity: capacity.max(1), seen: 0 }
    }

    pub fn push(&mut self, item: T, rng: &mut Rng) {
        self.seen += 1;
        if self.items.len() < self.capacity {
            self.items.push(item);
        } else {
            let j = rng.below(self.seen);
            if j < self.capacity {
                self.items[j] = item;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn seen(&self) -> usize {
        self.seen
    }

    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// `m` items drawn uniformly with replacement from the buffer.
    pub fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T> {
        if self.items.is_empty() {
            return Vec::new();
        }
        (0..m).map(|_| rng.choose(&self.items).clone()).collect()
    }
}

/// A replay buffer a training loop fills and draws from, whoever runs its
/// sampling rule: the lab's [`Reservoir`], or a learner's own (the
/// exercises' scripted reservoir).
pub trait ReplayBuffer<T> {
    /// Offer one item; the buffer decides whether to keep it (`rng` for a
    /// random rule).
    fn push(&mut self, item: T, rng: &mut Rng) -> anyhow::Result<()>;
    /// `m` items drawn uniformly with replacement from the buffer.
    fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T>;
    /// The items in the buffer.
    fn items(&self) -> Vec<T>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// How many items were offered.
    fn seen(&self) -> usize;
}

impl<T: Clone> ReplayBuffer<T> for Reservoir<T> {
    fn push(&mut self, item: T, rng: &mut Rng) -> anyhow::Result<()> {
        Reservoir::push(self, item, rng);
        Ok(())
    }

    fn sample(&self, m: usize, rng: &mut Rng) -> Vec<T> {
        Reservoir::sample(self, m, rng)
    }

    fn items(&self) -> Vec<T> {
        Reservoir::items(self).to_vec()
    }

    fn len(&self) -> usize {
        Reservoir::len(self)
    }

    fn seen(&self) -> usize {
        Reservoir::seen(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_the_latest() {
        let mut r = RingBuffer::new(3);
        for i in 0..5 {
            r.push(i);
        }
        let mut v = r.items().to_vec();
        v.sort();
        assert_eq!(v, vec![2, 3, 4]);
    }

    #[test]
    fn reservoir_keeps_each_item_with_probability_k_over_n() {
        // 10 slots, 100 items: each item should be kept ~10% of the time.
        let mut counts = vec![0usize; 100];
        let mut rng = Rng::new(42);
        let trials = 4000;
        for _ in 0..trials {
            let mut r = Reservoir::new(10);
            for i in 0..100 {
                r.push(i, &mut rng);
            }
            assert_eq!(r.len(), 10);
            for &i in r.items() {
                counts[i] += 1;
            }
        }
        let first = counts[..10].iter().sum::<usize>() as f64 / (10 * trials) as f64;
        let last = counts[90..].iter().sum::<usize>() as f64 / (10 * trials) as f64;
        assert!((first - 0.1).abs() < 0.015, "old items kept at {first}");
        assert!((last - 0.1).abs() < 0.015, "new items kept at {last}");
    }

    #[test]
    fn a_reservoir_is_a_replay_buffer() {
        let mut r: Box<dyn ReplayBuffer<u32>> = Box::new(Reservoir::new(2));
        let mut rng = Rng::new(1);
        assert!(r.is_empty() && r.sample(3, &mut rng).is_empty());
        for i in 0..5 {
            r.push(i, &mut rng).unwrap();
        }
        assert_eq!((r.len(), r.seen(), r.items().len()), (2, 5, 2));
        assert!(r.sample(4, &mut rng).iter().all(|x| r.items().contains(x)));
    }
}
