//! [`AnswerSink`]: where a batch's answers go as the GPU's are decided, so that a caller who
//! lays them out in arrays of its own (the Python package's numpy arrays) writes them there
//! straight from the GPU's hit slots, with no `Vec` of answers between.

use rayon::prelude::*;

/// Where the answers of a batch go as they are decided, in the rays' order: a `Vec` of them
/// (what the batch queries return), or the caller's own layout
/// ([`GpuMesh::cast_batch_into_with`](crate::GpuMesh::cast_batch_into_with)).
///
/// The GPU's answers come a run of consecutive rays at a time ([`AnswerSink::take`], in
/// parallel within a run). A ray the GPU leaves open (through or next to an edge or a
/// vertex) is given there as `T::default()`, and its answer, finished on the CPU, comes
/// after every run through [`AnswerSink::put`].
///
/// Deciding 2M random rays' closest hits and laying them out in the Python package's five
/// arrays this way, rather than through a `Vec` of them, took 41% less time on the bunny and
/// 20% less on the ogre (BENCHMARKS.md, "From numpy: hits laid out as they are decided").
pub trait AnswerSink<T: Send> {
    /// Takes the answers of rays `first..first + answers.len()`: the first run starts at
    /// ray 0, and each next one where the last ended.
    fn take<I: IndexedParallelIterator<Item = T>>(&mut self, first: usize, answers: I);

    /// Puts `answer` in place of the placeholder [`AnswerSink::take`] gave ray `ray`.
    fn put(&mut self, ray: usize, answer: T);
}

impl<T: Send> AnswerSink<T> for Vec<T> {
    fn take<I: IndexedParallelIterator<Item = T>>(&mut self, first: usize, answers: I) {
        debug_assert_eq!(first, self.len(), "runs of answers come in order");
        self.par_extend(answers);
    }

    fn put(&mut self, ray: usize, answer: T) {
        self[ray] = answer;
    }
}
