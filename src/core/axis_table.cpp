#include "core/axis_table.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace upsample {
namespace {

template <typename W>
class TableBuilder {
 public:
  // `taps`: the exact number of taps the table will hold (reserved once).
  TableBuilder(int64_t rows, int64_t src_len, int64_t taps) {
    table_.rows = rows;
    table_.src_len = src_len;
    table_.offsets.reserve(static_cast<size_t>(rows) + 1);
    table_.offsets.push_back(0);
    table_.index.reserve(static_cast<size_t>(taps));
    table_.weight.reserve(static_cast<size_t>(taps));
  }
  void tap(int64_t index, W weight) {
    table_.index.push_back(index);
    table_.weight.push_back(weight);
  }
  void end_row() { table_.offsets.push_back(static_cast<int64_t>(table_.index.size())); }
  AxisTable<W> finish() {
    finalize_flags(&table_);
    return std::move(table_);
  }

  static void finalize_flags(AxisTable<W>* t) {
    bool unit = true;
    bool identity = t->rows == t->src_len;
    for (int64_t r = 0; r < t->rows && (unit || identity); ++r) {
      const bool one_tap = t->taps(r) == 1 && t->weight[t->offsets[r]] == W(1);
      unit = unit && one_tap;
      identity = identity && one_tap && t->index[t->offsets[r]] == r;
    }
    t->unit_taps = unit;
    t->identity = identity;
  }

 private:
  AxisTable<W> table_;
};

}  // namespace

template <typename W>
int64_t AxisTable<W>::max_taps() const {
  int64_t m = 0;
  for (int64_t r = 0; r < rows; ++r) m = std::max(m, taps(r));
  return m;
}

template <typename W>
bool AxisTable<W>::uniform_taps() const {
  if (rows == 0) return true;
  const int64_t t0 = taps(0);
  for (int64_t r = 1; r < rows; ++r) {
    if (taps(r) != t0) return false;
  }
  return true;
}

template <typename W>
AxisTable<W> build_axis_table(const AxisWeights<W>& weights) {
  TableBuilder<W> b(weights.rows(), weights.src_len(), weights.total_taps());
  for (int64_t dst = 0; dst < weights.rows(); ++dst) {
    weights.row(dst, [&b](int64_t index, W weight) { b.tap(index, weight); });
    b.end_row();
  }
  return b.finish();
}

template <typename W>
AxisTable<W> transpose(const AxisTable<W>& t) {
  AxisTable<W> out;
  out.rows = t.src_len;
  out.src_len = t.rows;
  out.offsets.assign(static_cast<size_t>(out.rows) + 1, 0);
  for (int64_t idx : t.index) ++out.offsets[idx + 1];
  for (int64_t r = 0; r < out.rows; ++r) out.offsets[r + 1] += out.offsets[r];
  out.index.resize(t.index.size());
  out.weight.resize(t.weight.size());
  std::vector<int64_t> cursor(out.offsets.begin(), out.offsets.end() - 1);
  // Visiting forward rows in ascending order leaves each transposed row in ascending
  // destination order: the summation order of the backward gather is fixed by the table.
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      const int64_t pos = cursor[t.index[e]]++;
      out.index[pos] = r;
      out.weight[pos] = t.weight[e];
    }
  }
  TableBuilder<W>::finalize_flags(&out);
  return out;
}

template <typename W>
AxisTable<W> interleave(const AxisTable<W>& t, int64_t group) {
  TableBuilder<W> b(t.rows * group, t.src_len * group,
                    static_cast<int64_t>(t.index.size()) * group);
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < group; ++c) {
      for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
        b.tap(t.index[e] * group + c, t.weight[e]);
      }
      b.end_row();
    }
  }
  return b.finish();
}

template <typename W>
std::string check_invariants(const AxisTable<W>& t) {
  std::ostringstream why;
  if (static_cast<int64_t>(t.offsets.size()) != t.rows + 1 || t.offsets.front() != 0 ||
      t.offsets.back() != static_cast<int64_t>(t.index.size()) ||
      t.index.size() != t.weight.size()) {
    return "offsets/index/weight sizes are inconsistent";
  }
  for (int64_t r = 0; r < t.rows; ++r) {
    if (t.offsets[r + 1] < t.offsets[r]) {
      why << "offsets decrease at row " << r;
      return why.str();
    }
    for (int64_t e = t.offsets[r]; e < t.offsets[r + 1]; ++e) {
      if (t.index[e] < 0 || t.index[e] >= t.src_len) {
        why << "row " << r << " tap " << e - t.offsets[r] << " index " << t.index[e]
            << " outside [0, " << t.src_len << ")";
        return why.str();
      }
      if (e > t.offsets[r] && t.index[e] < t.index[e - 1]) {
        why << "row " << r << " indices decrease at tap " << e - t.offsets[r];
        return why.str();
      }
    }
  }
  AxisTable<W> copy = t;
  TableBuilder<W>::finalize_flags(&copy);
  if (copy.identity != t.identity || copy.unit_taps != t.unit_taps) return "flags disagree";
  return {};
}

template struct AxisTable<float>;
template struct AxisTable<double>;
template AxisTable<float> build_axis_table<float>(const AxisWeights<float>&);
template AxisTable<double> build_axis_table<double>(const AxisWeights<double>&);
template AxisTable<float> transpose<float>(const AxisTable<float>&);
template AxisTable<float> interleave<float>(const AxisTable<float>&, int64_t);
template AxisTable<double> interleave<double>(const AxisTable<double>&, int64_t);
template AxisTable<double> transpose<double>(const AxisTable<double>&);
template std::string check_invariants<float>(const AxisTable<float>&);
template std::string check_invariants<double>(const AxisTable<double>&);

}  // namespace upsample
