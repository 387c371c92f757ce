// Layout facts about strided tensors, computed with checked arithmetic: memory order, density,
// the span of elements a view touches, and whether views overlap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "upsample/tensor_desc.hpp"

namespace upsample::core {

using DimOrder = std::array<int, kMaxRank>;

// Dimensions ordered from the largest stride to the smallest (size-1 dims keep their place).
DimOrder stride_order(const TensorDesc& t);

// True when the tensor is exactly the row-major packing of its dims taken in `order`.
bool dense_in_order(const TensorDesc& t, const DimOrder& order);

// Row-major strides (elements) of `sizes` packed in `order`.
std::array<int64_t, kMaxRank> dense_strides(const std::array<int64_t, kMaxRank>& sizes, int rank,
                                            const DimOrder& order);

// The lowest and highest element offset (relative to element 0) the view reaches. False when a
// term overflows int64 (such a view cannot be addressed). Empty views give {0, 0}.
bool element_span(const TensorDesc& t, int64_t* lowest, int64_t* highest);

// True when two distinct indices of the view address the same element.
bool self_overlapping(const TensorDesc& t);

// A view placed in memory: `base` is the address of its element 0.
struct PlacedView {
  const TensorDesc* desc = nullptr;
  uintptr_t base = 0;
};

// True when some byte of an element of `a` is also a byte of an element of `b`. Exact, with work
// independent of the row counts, for views into one tensor whose row strides are equal or
// divide one another (even/odd rows or elements, every k-th row, side-by-side blocks of one
// canvas, channel slices; layout.cpp); a pair too intricate to decide within a bounded amount
// of work is reported as overlapping (`*undecided` set), so a true overlap is never missed.
bool views_overlap(const PlacedView& a, const PlacedView& b, bool* undecided = nullptr);

std::string sizes_string(const TensorDesc& t);

}  // namespace upsample::core
