// The floor of a workload: the time a kernel needs to read every input byte once and write
// every output byte once, with the same threads as the operator, in the same run. It is the
// physical limit of a memory-bound operator on the machine (bench/README.md, "The floor").
//
// Thread t of n owns a contiguous share of the input and a contiguous share of the output, in
// whole vectors of floor_vector_bytes() bytes (the widest Highway target of this CPU), and walks
// both in step with full-width loads and stores:
//   * as many output vectors as input vectors or more (upsampling): each input vector is loaded
//     once and stored to the next q or q + 1 output vectors, q = out / in (Bresenham's
//     remainder spreads the extra ones evenly);
//   * fewer output vectors (downsampling): each output vector is the XOR of the next q or q + 1
//     input vectors, q = in / out.
// The bytes after the last whole vector (the tails; only custom shapes have them; the whole
// input when the output has no whole vector) go to the last thread: every output tail byte is
// the XOR of the input tail bytes and its own index (with no output tail, that XOR goes into the
// last output byte). With no whole input vector, the output vectors are stored as zeros.
//
// The stores are ordinary (FloorStores::kNormal) or non-temporal (kStreaming, followed by a
// store fence); the floor of a workload is the faster of the two.
#pragma once

#include <cstddef>
#include <functional>

namespace upsample::bench {

class Pool;

enum class FloorStores { kNormal, kStreaming };

// The width of the kernel's loads and stores in bytes, and the name of its Highway target
// (e.g. 64 and "AVX3").
size_t floor_vector_bytes();
const char* floor_target();

// Thread t's part of the floor (0 <= t < n). `in` and `out` must be aligned to
// floor_vector_bytes().
void floor_share(const void* in, size_t in_bytes, void* out, size_t out_bytes, int t, int n,
                 FloorStores stores);

// Runs floor_share on every thread of `pool`.
void run_floor(const void* in, size_t in_bytes, void* out, size_t out_bytes, Pool& pool,
               FloorStores stores);

}  // namespace upsample::bench
