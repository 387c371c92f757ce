// WorkShares (src/cpu/work_shares.hpp): every element is handed out exactly once, ranges begin
// only where snap() allows, threads that keep pace run exactly their static shares, and a thread
// that is done finishes a late thread's share from its back.
#include "cpu/work_shares.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace upsample::cpu {
namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

// Runs threads 0 .. running - 1 of the team, each on its own std::thread (a parallel region may
// start fewer than the team asked for); returns each thread's ranges in order.
template <typename Snap>
std::vector<Ranges> run_team(WorkShares& shares, int running, const Snap& snap) {
  std::vector<Ranges> got(static_cast<size_t>(running));
  std::vector<std::thread> threads;
  for (int t = 0; t < running; ++t) {
    threads.emplace_back([&, t] {
      shares.run(t, running, snap, [&](int64_t b, int64_t e) { got[t].emplace_back(b, e); });
    });
  }
  for (auto& th : threads) th.join();
  return got;
}

// Every element of [0, total) in exactly one range; every range non-empty and starting at 0, at
// a static share's start, or where snap() leaves a place of its share unmoved.
template <typename Snap>
void expect_partition(const std::vector<Ranges>& got, int64_t total, int team, const Snap& snap,
                      const std::string& what) {
  std::vector<int> seen(static_cast<size_t>(total), 0);
  for (const Ranges& ranges : got) {
    for (auto [b, e] : ranges) {
      ASSERT_LT(b, e) << what;
      ASSERT_GE(b, 0) << what;
      ASSERT_LE(e, total) << what;
      bool share_start = false;
      for (int t = 0; t < team; ++t) share_start |= b == total * t / team;
      int64_t share_begin = 0;  // of the share holding b
      for (int t = 0; t < team; ++t) {
        if (total * t / team <= b) share_begin = total * t / team;
      }
      EXPECT_TRUE(share_start || snap(b, share_begin) == b) << what << " range starts at " << b;
      for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
    }
  }
  for (int64_t i = 0; i < total; ++i) {
    ASSERT_EQ(seen[static_cast<size_t>(i)], 1) << what << " element " << i;
  }
}

TEST(WorkShares, EveryElementOnceWhateverTheSplit) {
  for (int64_t total : {1, 7, 33, 1000, 4097}) {
    for (int team : {1, 2, 3, 7, 64, 65}) {
      for (int64_t min_chunk : {1, 64}) {
        for (int64_t grain : {1, 3}) {
          for (int running : {team, (team + 1) / 2, 1}) {
            const auto snap = WorkShares::multiples_of(grain);
            WorkShares shares(total, team, min_chunk);
            const std::string what = "total " + std::to_string(total) + " team " +
                                     std::to_string(team) + " running " + std::to_string(running) +
                                     " min_chunk " + std::to_string(min_chunk) + " grain " +
                                     std::to_string(grain);
            expect_partition(run_team(shares, running, snap), total, team, snap, what);
          }
        }
      }
    }
  }
}

// Ranges of one share, as run by its owner (front to back) or by a helper (back to front):
// contiguous, covering [begin, end), and smaller towards the share's back.
void expect_share(const Ranges& ranges, int64_t begin, int64_t end, bool from_back,
                  const std::string& what) {
  ASSERT_FALSE(ranges.empty()) << what;
  Ranges in_order = ranges;
  if (from_back) std::reverse(in_order.begin(), in_order.end());
  EXPECT_EQ(in_order.front().first, begin) << what;
  EXPECT_EQ(in_order.back().second, end) << what;
  for (size_t i = 1; i < in_order.size(); ++i) {
    EXPECT_EQ(in_order[i].first, in_order[i - 1].second) << what << " range " << i;
    EXPECT_LE(in_order[i].second - in_order[i].first,
              in_order[i - 1].second - in_order[i - 1].first)
        << what << " range " << i;
  }
}

// Called one after another, thread 0 runs its own share front to back and then every other
// share from its back; the later threads find nothing left.
TEST(WorkShares, AThreadThatIsDoneTakesTheOthersChunksFromTheirBacks) {
  const int64_t total = 1000;
  const int team = 4;
  WorkShares shares(total, team);
  Ranges first, later;
  shares.run(0, 1, WorkShares::multiples_of(1),
             [&](int64_t b, int64_t e) { first.emplace_back(b, e); });
  for (int t = 1; t < team; ++t) {
    shares.run(t, 1, WorkShares::multiples_of(1),
               [&](int64_t b, int64_t e) { later.emplace_back(b, e); });
  }
  EXPECT_TRUE(later.empty());
  // Its own share [0, 250), then shares 1, 2 and 3, each from its back.
  std::vector<Ranges> by_share(team);
  for (auto r : first) by_share[static_cast<size_t>(r.first / 250)].push_back(r);
  size_t i = 0;
  for (int t = 0; t < team; ++t) {
    for (size_t j = 0; j < by_share[t].size(); ++j, ++i) {
      ASSERT_LT(i, first.size());
      EXPECT_EQ(first[i], by_share[t][j]) << "ranges of share " << t << " not in a row";
    }
    expect_share(by_share[t], 250 * t, 250 * (t + 1), t > 0, "share " + std::to_string(t));
  }
  // Chunks shrink towards the back: the last is a small part of the share.
  EXPECT_GT(by_share[0].size(), 8u);
  EXPECT_LE(by_share[0].back().second - by_share[0].back().first, 250 / 100 + 1);
  expect_partition({first}, total, team, WorkShares::multiples_of(1), "sequential");
}

// A thread that starts late, or stalls, has its share finished by the others: here thread 0
// stalls in its first range until thread 1 is done, and thread 1 runs the rest of both shares.
TEST(WorkShares, AStalledThreadsShareIsFinishedByTheOther) {
  const int64_t total = 640;
  WorkShares shares(total, 2);
  std::mutex m;
  std::condition_variable cv;
  bool other_done = false;
  Ranges got0, got1;
  std::thread t0([&] {
    shares.run(0, 2, WorkShares::multiples_of(1), [&](int64_t b, int64_t e) {
      std::unique_lock<std::mutex> lock(m);
      got0.emplace_back(b, e);
      cv.wait(lock, [&] { return other_done; });
    });
  });
  // Thread 1 starts once thread 0 holds its first chunk.
  while (true) {
    std::lock_guard<std::mutex> lock(m);
    if (!got0.empty()) break;
  }
  std::thread t1([&] {
    shares.run(1, 2, WorkShares::multiples_of(1),
               [&](int64_t b, int64_t e) { got1.emplace_back(b, e); });
    std::lock_guard<std::mutex> lock(m);
    other_done = true;
    cv.notify_all();
  });
  t0.join();
  t1.join();
  ASSERT_EQ(got0.size(), 1u);
  EXPECT_EQ(got0[0].first, 0);
  // Thread 1: its own share [320, 640) front to back, then thread 0's from 320 back to the end
  // of the stalled chunk.
  Ranges own, helped;
  for (auto r : got1) (r.first >= 320 ? own : helped).push_back(r);
  ASSERT_EQ(got1.size(), own.size() + helped.size());
  EXPECT_TRUE(std::equal(own.begin(), own.end(), got1.begin())) << "own share first";
  expect_share(own, 320, 640, false, "own share");
  expect_share(helped, got0[0].second, 320, true, "thread 0's share");
  expect_partition({got0, got1}, total, 2, WorkShares::multiples_of(1), "stalled");
}

// Snapped chunks: ranges begin only at the places snap() allows (or at a share's start), and a
// chunk that snapping empties is skipped.
TEST(WorkShares, RangesBeginWhereSnapAllows) {
  const int64_t total = 3 * 224;  // W9's three planes of 224 output rows in bands of 91
  const auto band_start = [](int64_t g, int64_t) {
    const int64_t plane = g / 224, r = g % 224;
    if (r % 91 == 0) return g;
    return plane * 224 + std::min<int64_t>((r / 91 + 1) * 91, 224);
  };
  WorkShares shares(total, 2);
  Ranges all;
  shares.run(0, 1, band_start, [&](int64_t b, int64_t e) { all.emplace_back(b, e); });
  // Thread 0's share [0, 336), then thread 1's [336, 672) from its back.
  // (Bands start at 0, 91 and 182 in each plane: 224 + 91 = 315 and 224 + 182 = 406.)
  const Ranges expect = {{0, 91},    {91, 182},  {182, 224}, {224, 315}, {315, 336},
                         {630, 672}, {539, 630}, {448, 539}, {406, 448}, {336, 406}};
  EXPECT_EQ(all, expect);
}

// Multiples of a grain count from the share's start, where the static split's blocks begin: with
// 42 elements in blocks of 8, share 1 = [21, 42) is cut only at 29 or 37 (its blocks' starts),
// share 0 = [0, 21) only at 8 or 16.
TEST(WorkShares, GrainsCountFromTheShareStart) {
  WorkShares shares(42, 2);
  Ranges got;
  shares.run(1, 2, WorkShares::multiples_of(8),
             [&](int64_t b, int64_t e) { got.emplace_back(b, e); });
  // (Thread 1 runs its own share, then helps share 0 from its back. Share 1's chunks nominally
  // start at 10, 16 and 20 into it, which snap to 16, 16 and 24: ranges [21, 37) and [37, 42).)
  const Ranges expect = {{21, 37}, {37, 42}, {16, 21}, {0, 16}};
  EXPECT_EQ(got, expect);
}

// Owners and helpers racing for the same chunks: 4 threads released at once, shares of a few
// one-element chunks, many times over. A claim that let two threads take one chunk, or lost one,
// shows as an element run twice or never (a logic race, which ThreadSanitizer does not see).
TEST(WorkShares, RacingClaimsHandOutEveryChunkOnce) {
  constexpr int kTeam = 4;
  for (int round = 0; round < 200; ++round) {
    const int64_t total = 8 + round % 57;
    WorkShares shares(total, kTeam);
    std::vector<std::atomic<int>> seen(static_cast<size_t>(total));
    for (auto& v : seen) v.store(0);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kTeam; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kTeam) {
        }
        // Thread 0 starts a little late, so the others reach its share while it claims.
        if (t == 0) std::this_thread::yield();
        shares.run(t, kTeam, WorkShares::multiples_of(1), [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) seen[static_cast<size_t>(i)].fetch_add(1);
        });
      });
    }
    for (auto& th : threads) th.join();
    for (int64_t i = 0; i < total; ++i) {
      ASSERT_EQ(seen[static_cast<size_t>(i)].load(), 1) << "round " << round << " element " << i;
    }
  }
}

}  // namespace
}  // namespace upsample::cpu
