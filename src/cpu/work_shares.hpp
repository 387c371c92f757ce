// How a parallel region shares out its work: contiguous shares, as a static split gives them, that
// a thread whose own share is done helps to finish from their back ends.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace upsample::cpu {

// [0, total) split between `team` threads. Thread t owns [total * t / team, total * (t + 1) / team)
// and runs it front to back in chunks, claiming each chunk as it starts it. A thread that has run
// its own share takes chunks from the back of the other shares (the next thread's first, then the
// one after), until every chunk is claimed.
//
// The chunks shrink towards a share's back: of a share of len elements in K chunks, chunk k
// nominally starts len * (1 - ((K - k) / K)^2) into it, so the first is about 2/K of the share and
// the last 1/K^2. A helper takes the small ones, and the last chunk of a call, which sets how long
// the other threads wait, is small: with chunks of equal size a helper that took the last one
// near the end of a balanced call overshot the owner by up to a chunk (W11 and W17 were 1.5-2.2%
// slower than a static split). K is kChunksPerShare, fewer where the smallest chunk would hold
// less than min_chunk elements (before snapping). The caller's snap(g, share_begin) moves each
// nominal start forward to the first place at or after g where a range may begin (where its
// kernels would cut the work anyway: a band's start, a multiple of a group of rows or of a block
// counted from the share's start, as the static split's groups and blocks are), and a chunk that
// snapping leaves empty is skipped. So when no thread helps another, each thread's calls cover its
// share in the ranges a static split would make, cut only at snapped places.
//
// Why: a static split waits for its slowest thread. On the shared hosts of docs/performance.md
// ("Threads that finish each other's shares") one of the two vCPUs runs the same loop 1.4-1.9x
// slower than the other while both are busy (for minutes at a time), and a worker can start late;
// the work of a call then ends when the faster thread has taken over the rest.
//
// Which thread runs an element never changes its value: every kernel computes each output with
// the same operations whatever range it is called on (the callers' comments say why for each).
//
// A share's unclaimed chunks are [front, back), both in one atomic word (front in the low 32
// bits), so an owner's claim of its front and a helper's claim of its back cannot both take the
// last chunk. A team of one (or none), and teams larger than kMaxTeam, run their static shares
// without help.
class WorkShares {
 public:
  static constexpr int kMaxTeam = 64;
  static constexpr int64_t kChunksPerShare = 16;

  WorkShares(int64_t total, int team, int64_t min_chunk = 1) : total_(total), team_(team) {
    if (team_ <= 1 || team_ > kMaxTeam) return;
    min_chunk = std::max<int64_t>(1, min_chunk);
    for (int t = 0; t < team_; ++t) {
      const int64_t len = share_end(t) - share_begin(t);
      int64_t chunks = kChunksPerShare;
      while (chunks > 1 && len / (chunks * chunks) < min_chunk) --chunks;
      chunks_[t] = chunks;
      // (published to the team by its parallel region)
      shares_[t].bounds = static_cast<uint64_t>(len > 0 ? chunks : 0) << 32;
    }
  }

  WorkShares(const WorkShares&) = delete;
  WorkShares& operator=(const WorkShares&) = delete;

  // Runs on thread `tid` of the `running` threads the parallel region started (OpenMP may start
  // fewer than the team asked for: nested in another region, or under a thread limit): calls
  // fn(begin, end) for each non-empty range it claims, in order. Shares whose thread did not
  // start are finished by the others as any share is; without help, thread tid runs the static
  // shares tid, tid + running, ... snap(g, share_begin) returns the first place >= g where a range
  // of the share that begins at share_begin may begin; it must not decrease as g grows (it may pass
  // the end of the share: ranges are clipped to it).
  template <typename Snap, typename Fn>
  void run(int tid, int running, const Snap& snap, Fn&& fn) {
    if (team_ <= 1 || team_ > kMaxTeam) {
      for (int t = tid; t < team_; t += running) {
        const int64_t begin = share_begin(t), end = share_end(t);
        if (begin < end) fn(begin, end);
      }
      return;
    }
    for (int64_t c; (c = claim(tid, /*front=*/true)) >= 0;) run_chunk(tid, c, snap, fn);
    for (int k = 1; k < team_; ++k) {
      const int victim = (tid + k) % team_;
      for (int64_t c; (c = claim(victim, /*front=*/false)) >= 0;) run_chunk(victim, c, snap, fn);
    }
  }

  // snap() for ranges that may begin at any multiple of `grain` from their share's start.
  static auto multiples_of(int64_t grain) {
    return [grain](int64_t g, int64_t share_begin) {
      return share_begin + (g - share_begin + grain - 1) / grain * grain;
    };
  }

 private:
  // Only the team's shares are written, and only through std::atomic_ref once the team runs: a
  // call does not pay for clearing kMaxTeam lines.
  struct alignas(64) Share {
    uint64_t bounds;
  };

  int64_t share_begin(int t) const { return total_ * t / team_; }
  int64_t share_end(int t) const { return total_ * (t + 1) / team_; }

  // Claims share t's first (front) or last unclaimed chunk; -1 when none is left.
  int64_t claim(int t, bool front) {
    std::atomic_ref<uint64_t> bounds(shares_[t].bounds);
    uint64_t b = bounds.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t lo = b & 0xffffffffu, hi = b >> 32;
      if (lo >= hi) return -1;
      const uint64_t next = front ? b + 1 : b - (uint64_t{1} << 32);
      if (bounds.compare_exchange_weak(b, next, std::memory_order_relaxed)) {
        return static_cast<int64_t>(front ? lo : hi - 1);
      }
    }
  }

  // Chunk c of share t: from its snapped nominal start to the next chunk's, within the share.
  template <typename Snap, typename Fn>
  void run_chunk(int t, int64_t c, const Snap& snap, Fn& fn) const {
    const int64_t share0 = share_begin(t), share1 = share_end(t);
    const int64_t len = share1 - share0, k2 = chunks_[t] * chunks_[t];
    const auto start = [&](int64_t k) {
      if (k == 0) return share0;
      if (k >= chunks_[t]) return share1;
      // len * (K - k)^2 / K^2 without overflow: (K - k)^2 <= K^2 <= 256.
      const int64_t m = (chunks_[t] - k) * (chunks_[t] - k);
      const int64_t left = len / k2 * m + len % k2 * m / k2;
      return std::min(share1, snap(share1 - left, share0));
    };
    const int64_t begin = start(c), end = start(c + 1);
    if (begin < end) fn(begin, end);
  }

  int64_t total_;
  int team_;
  int64_t chunks_[kMaxTeam];
  Share shares_[kMaxTeam];
};

}  // namespace upsample::cpu
