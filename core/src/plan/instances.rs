//! A frame's instances in draw order, held as one or more parts: the batcher's own recording,
//! and each part recorded on another thread ([`crate::Batcher::record_parts`]), kept where it
//! was written rather than copied into one vector. Instance `i` is the `i`th of the parts
//! read in order; executors upload the parts piece by piece
//! ([`FramePlan::write_block_with`](crate::FramePlan::write_block_with)).

use std::ops::{Index, IndexMut, Range};

use super::Instance;

/// A plan's instances: one vector, or several read one after another.
///
/// Indexing, [`Instances::len`] and [`Instances::iter`] read the parts as one sequence;
/// [`Instances::pieces`] gives a range of it as the slices it lies in. Made from a vector with
/// `From`, it is that vector as one part.
///
/// ```
/// use layerbatch_core::plan::{Instance, Instances};
/// let mut instances = Instances::from(vec![Instance::default(); 3]);
/// instances.push(Instance { effect: 1, ..Instance::default() });
/// assert_eq!((instances.len(), instances[3].effect), (4, 1));
/// assert_eq!(instances.pieces(1..4).map(<[_]>::len).sum::<usize>(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Instances {
    /// The parts before the last, in order, none empty.
    sealed: Vec<Vec<Instance>>,
    /// Where each sealed part starts: `starts[k]` is the instances in parts before `k`.
    starts: Vec<usize>,
    /// The instances in the sealed parts.
    sealed_len: usize,
    /// The last part, the one that grows: a push is a `Vec::push`.
    head: Vec<Instance>,
    /// Emptied parts kept for their allocations.
    spare: Vec<Vec<Instance>>,
}

impl Instances {
    /// No instances.
    pub fn new() -> Self {
        Self::default()
    }

    /// The instances in every part.
    #[inline]
    pub fn len(&self) -> usize {
        self.sealed_len + self.head.len()
    }

    /// No instance in any part.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The parts holding instances, in order (a plan recorded on one thread has one).
    pub fn part_count(&self) -> usize {
        self.sealed.len() + usize::from(!self.head.is_empty())
    }

    /// Every part, in order (the last may be empty).
    fn parts(&self) -> impl DoubleEndedIterator<Item = &Vec<Instance>> + '_ {
        self.sealed.iter().chain(std::iter::once(&self.head))
    }

    /// Every part with where it starts, in order.
    fn starts(&self) -> impl Iterator<Item = usize> + '_ {
        self.starts.iter().copied().chain(std::iter::once(self.sealed_len))
    }

    /// Adds an instance after the last.
    #[inline]
    pub fn push(&mut self, instance: Instance) {
        self.head.push(instance);
    }

    /// Keeps the first `len` instances (nothing changes if there are no more).
    pub fn truncate(&mut self, len: usize) {
        while len <= self.sealed_len && !self.sealed.is_empty() {
            self.unseal_last();
        }
        self.head.truncate(len - self.sealed_len);
    }

    /// Makes the last sealed part the head again, the head's allocation kept for later.
    fn unseal_last(&mut self) {
        if let (Some(part), Some(start)) = (self.sealed.pop(), self.starts.pop()) {
            let mut head = std::mem::replace(&mut self.head, part);
            head.clear();
            self.spare.push(head);
            self.sealed_len = start;
        }
    }

    /// Empties every part, keeping their allocations for later parts.
    pub fn clear(&mut self) {
        while !self.sealed.is_empty() {
            self.unseal_last();
        }
        self.head.clear();
    }

    /// An empty vector with the largest allocation of the parts emptied earlier (or of the
    /// head, while nothing was pushed into it), for a part to be recorded into and
    /// [appended](Instances::append_part): a frame recorded in parts reuses last frames'
    /// memory rather than growing fresh vectors (measured: a new vector each frame made
    /// recording in parts slower than recording on one thread).
    pub(crate) fn spare_part(&mut self) -> Vec<Instance> {
        let largest = (0..self.spare.len()).max_by_key(|&k| self.spare[k].capacity());
        let mut part = largest.map(|k| self.spare.swap_remove(k)).unwrap_or_default();
        if self.head.is_empty() && self.head.capacity() > part.capacity() {
            std::mem::swap(&mut self.head, &mut part);
        }
        part
    }

    /// Adds `part`'s instances after the last, as a part of their own (not copied); later
    /// instances go into a new part after it.
    pub(crate) fn append_part(&mut self, part: Vec<Instance>) {
        if part.is_empty() {
            self.spare.push(part);
            return;
        }
        let next = self.spare.pop().unwrap_or_default();
        for sealed in [std::mem::replace(&mut self.head, next), part] {
            if sealed.is_empty() {
                self.spare.push(sealed);
                continue;
            }
            self.starts.push(self.sealed_len);
            self.sealed_len += sealed.len();
            self.sealed.push(sealed);
        }
    }

    /// Replaces the instances with `v`'s, as one part, and leaves in `v` a vector to reuse
    /// (emptied).
    pub(crate) fn swap_vec(&mut self, v: &mut Vec<Instance>) {
        self.clear();
        std::mem::swap(&mut self.head, v);
    }

    /// Appends instances `order` (each below [`Instances::len`]) to `out`, in that order.
    pub(crate) fn gather_into(&mut self, order: &[u32], out: &mut Vec<Instance>) {
        if let Some(one) = self.as_slice() {
            return out.extend(order.iter().map(|&i| one[i as usize]));
        }
        // Several parts are copied into one vector first: a gather in random order is bound by
        // how many loads are in flight, and finding each instance's part halves that
        // (measured: 44 ms against 17 for 1,000,000 instances, the copy 3-6 ms).
        let mut flat = self.spare_part();
        flat.clear();
        for part in self.parts() {
            flat.extend_from_slice(part);
        }
        out.extend(order.iter().map(|&i| flat[i as usize]));
        flat.clear();
        self.spare.push(flat);
    }

    /// The part instance `i` lies in (`sealed.len()` for the head), and its place there.
    #[inline]
    fn locate(&self, i: usize) -> Option<(usize, usize)> {
        if i >= self.sealed_len {
            let at = i - self.sealed_len;
            return (at < self.head.len()).then_some((self.sealed.len(), at));
        }
        let k = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        Some((k, i - self.starts[k]))
    }

    /// Instance `i`, if there are more.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Instance> {
        let (k, at) = self.locate(i)?;
        self.sealed.get(k).unwrap_or(&self.head).get(at)
    }

    /// Instance `i`, to change, if there are more.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Instance> {
        let (k, at) = self.locate(i)?;
        match self.sealed.get_mut(k) {
            Some(part) => part.get_mut(at),
            None => self.head.get_mut(at),
        }
    }

    /// Every instance, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Instance> + '_ {
        self.parts().flatten()
    }

    /// Every instance, in order, to change.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Instance> + '_ {
        self.sealed.iter_mut().chain(std::iter::once(&mut self.head)).flatten()
    }

    /// Instances `range` (clipped to [`Instances::len`]) as the slices of the parts they lie
    /// in, in order, none empty.
    pub fn pieces(&self, range: Range<usize>) -> impl Iterator<Item = &[Instance]> + '_ {
        self.parts().zip(self.starts()).filter_map(move |(part, start)| {
            let a = range.start.max(start) - start;
            let b = range.end.min(start + part.len()).saturating_sub(start);
            (a < b).then(|| &part[a..b])
        })
    }

    /// [`Instances::pieces`], to change.
    pub fn pieces_mut(&mut self, range: Range<usize>) -> impl Iterator<Item = &mut [Instance]> + '_ {
        let starts = self.starts.iter().copied().chain(std::iter::once(self.sealed_len));
        self.sealed.iter_mut().chain(std::iter::once(&mut self.head)).zip(starts).filter_map(move |(part, start)| {
            let a = range.start.max(start) - start;
            let b = range.end.min(start + part.len()).saturating_sub(start);
            (a < b).then(|| &mut part[a..b])
        })
    }

    /// Instances `range` (clipped), in order.
    pub fn range(&self, range: Range<usize>) -> impl Iterator<Item = &Instance> + '_ {
        self.pieces(range).flatten()
    }

    /// The instances as one slice when they are in one part.
    pub fn as_slice(&self) -> Option<&[Instance]> {
        match (self.sealed.as_slice(), self.head.is_empty()) {
            ([], _) => Some(&self.head),
            ([one], true) => Some(one),
            _ => None,
        }
    }

    /// The instances, copied into one vector.
    pub fn to_vec(&self) -> Vec<Instance> {
        self.iter().copied().collect()
    }
}

impl Instances {
    /// The instances of `parts`, read one after another, each kept as it is (a hand-made
    /// plan's, or a test's of an executor reading parts).
    pub fn from_parts(parts: impl IntoIterator<Item = Vec<Instance>>) -> Self {
        let mut v = Self::new();
        for part in parts {
            v.append_part(part);
        }
        v
    }
}

impl From<Vec<Instance>> for Instances {
    fn from(head: Vec<Instance>) -> Self {
        Self { head, ..Self::default() }
    }
}

impl FromIterator<Instance> for Instances {
    fn from_iter<I: IntoIterator<Item = Instance>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl Extend<Instance> for Instances {
    /// Adds instances after the last, into the last part.
    #[inline]
    fn extend<I: IntoIterator<Item = Instance>>(&mut self, instances: I) {
        self.head.extend(instances);
    }
}

impl PartialEq for Instances {
    /// The same instances in the same order, however they are divided into parts.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Index<usize> for Instances {
    type Output = Instance;

    /// # Panics
    /// If `i` is not below [`Instances::len`], as a slice would.
    #[inline]
    fn index(&self, i: usize) -> &Instance {
        let len = self.len();
        self.get(i).unwrap_or_else(|| panic!("instance {i} of {len}"))
    }
}

impl IndexMut<usize> for Instances {
    /// # Panics
    /// If `i` is not below [`Instances::len`], as a slice would.
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Instance {
        let len = self.len();
        self.get_mut(i).unwrap_or_else(|| panic!("instance {i} of {len}"))
    }
}

impl<'a> IntoIterator for &'a Instances {
    type Item = &'a Instance;
    type IntoIter =
        std::iter::Flatten<std::iter::Chain<std::slice::Iter<'a, Vec<Instance>>, std::iter::Once<&'a Vec<Instance>>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.sealed.iter().chain(std::iter::once(&self.head)).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(n: u32) -> Instance {
        Instance { effect: n, ..Instance::default() }
    }

    fn ids(v: &Instances) -> Vec<u32> {
        v.iter().map(|i| i.effect).collect()
    }

    #[test]
    fn parts_read_as_one_sequence_and_recycle_their_allocations() {
        let mut v = Instances::new();
        assert_eq!((v.len(), v.get(0), v.part_count()), (0, None, 0));
        v.extend((0..3).map(inst));
        v.append_part((3..7).map(inst).collect());
        v.append_part(Vec::new());
        v.push(inst(7));
        v.append_part((8..10).map(inst).collect());
        assert_eq!(ids(&v), (0..10).collect::<Vec<_>>());
        assert_eq!((v.len(), v.part_count(), v.as_slice().is_none()), (10, 4, true));
        for i in 0..10 {
            assert_eq!(v[i].effect, i as u32);
        }
        assert_eq!(v.get(10), None);
        let pieces: Vec<Vec<u32>> = v.pieces(2..9).map(|p| p.iter().map(|i| i.effect).collect()).collect();
        assert_eq!(pieces, [vec![2], vec![3, 4, 5, 6], vec![7], vec![8]]);
        for p in v.pieces_mut(5..8) {
            p.iter_mut().for_each(|i| i.effect += 100);
        }
        assert_eq!(ids(&v), [0, 1, 2, 3, 4, 105, 106, 107, 8, 9]);
        assert_eq!(v, Instances::from(v.to_vec()));
        v.truncate(5);
        assert_eq!(ids(&v), [0, 1, 2, 3, 4]);
        v.push(inst(5));
        assert_eq!(ids(&v), [0, 1, 2, 3, 4, 5]);
        v.clear();
        assert!(v.is_empty() && v.as_slice() == Some(&[][..]));
        let reused = v.spare_part();
        assert!(reused.capacity() > 0, "an emptied part's allocation is kept");
        let mut w = vec![inst(1)];
        v.swap_vec(&mut w);
        assert_eq!((ids(&v), w.len()), (vec![1], 0));
    }
}
