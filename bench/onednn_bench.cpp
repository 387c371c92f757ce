// onednn_bench: oneDNN's resampling primitive (https://oneapi-src.github.io/oneDNN/, Debian
// libdnnl-dev 2.6) timed the way upsample_bench times the library, for bench/compare.py.
//
//   onednn_bench --alg linear|nearest --dir fwd|bwd --in N,C,S1[,S2[,S3]] --out O1[,O2[,O3]]
//                [--layouts nchw,blocked] [--dtype f32|bf16|f16] [--threads N] [--reps R]
//                [--check nearest|nearest-exact|linear]
//
// The sizes are the forward op's (as in the workload table); "bwd" runs the backward-data
// primitive (diff_dst shaped like the forward output, diff_src like the input). For each layout
// in --layouts ("nchw": the plain channels-first tag of the rank, ncw / nchw / ncdhw; "nhwc":
// channels-last, nwc / nhwc / ndhwc; "blocked": channels in blocks of 16, nCw16c / nChw16c /
// nCdhw16c), the primitive is created once on buffers allocated and filled once (uniform random
// values in [-1, 1]), then runs 3 warm-up and R timed executions (std::chrono::steady_clock
// around execute + stream wait), with the OpenMP thread count set to --threads. A layout oneDNN
// refuses is reported with its error.
//
// --check MODE also runs the library (native API, plain layout, same dtype) on the same input
// with MODE and reports the largest absolute difference of the outputs: the evidence that the
// primitive computes the same function as the library's MODE for this shape.
//
// --reps R fixes the timed runs; by default R is adaptive as in upsample_bench (about 0.5 s of
// runs, 20 to 5000, sized by the warm-up runs).
//
// Output: one JSON line {"version", "results": [{"layout", "reps", "ms_median", "ms_min"[,
// "max_abs_diff", "max_abs_ours"]} or {"layout", "error"}]}; exit status 0, or 2 on a usage
// error.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"
#include "upsample/resample.hpp"

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

struct Args {
  dnnl::algorithm alg = dnnl::algorithm::resampling_linear;
  bool backward = false;
  memory::dims in, out;  // forward input and output sizes, N and C included
  std::vector<std::string> layouts{"nchw"};
  memory::data_type dtype = memory::data_type::f32;
  int threads = 2;
  int reps = 0;       // 0: adaptive
  std::string check;  // "" or the library's mode to compare with
};

[[noreturn]] void usage(const std::string& what) {
  std::fprintf(stderr,
               "onednn_bench: %s\nusage: onednn_bench --alg linear|nearest --dir fwd|bwd "
               "--in N,C,S... --out O... [--layouts nchw,nhwc,blocked] [--dtype f32|bf16|f16] "
               "[--threads N] [--reps R] [--check nearest|nearest-exact|linear]\n",
               what.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

memory::dims parse_dims(const std::string& s, const char* flag) {
  memory::dims d;
  for (const std::string& item : split(s)) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
        item.size() > 9 || std::stoll(item) <= 0) {
      usage(std::string(flag) + " takes positive integers separated by commas, got '" + s + "'");
    }
    d.push_back(std::stoll(item));
  }
  return d;
}

Args parse(int argc, char** argv) {
  Args a;
  memory::dims out_spatial;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string v = argv[++i];
    if (flag == "--alg") {
      if (v != "linear" && v != "nearest")
        usage("--alg must be linear or nearest, got '" + v + "'");
      a.alg =
          v == "linear" ? dnnl::algorithm::resampling_linear : dnnl::algorithm::resampling_nearest;
    } else if (flag == "--dir") {
      if (v != "fwd" && v != "bwd") usage("--dir must be fwd or bwd, got '" + v + "'");
      a.backward = v == "bwd";
    } else if (flag == "--in") {
      a.in = parse_dims(v, "--in");
    } else if (flag == "--out") {
      out_spatial = parse_dims(v, "--out");
    } else if (flag == "--layouts") {
      a.layouts = split(v);
      for (const std::string& l : a.layouts) {
        if (l != "nchw" && l != "nhwc" && l != "blocked") {
          usage("--layouts takes nchw, nhwc and blocked, got '" + l + "'");
        }
      }
    } else if (flag == "--dtype") {
      if (v == "f32") {
        a.dtype = memory::data_type::f32;
      } else if (v == "bf16") {
        a.dtype = memory::data_type::bf16;
      } else if (v == "f16") {
        a.dtype = memory::data_type::f16;
      } else {
        usage("--dtype must be f32, bf16 or f16, got '" + v + "'");
      }
    } else if (flag == "--threads" || flag == "--reps") {
      const memory::dims n = parse_dims(v, flag.c_str());
      if (n.size() != 1 || n[0] > 1000000) usage(flag + " takes one number, got '" + v + "'");
      (flag == "--threads" ? a.threads : a.reps) = static_cast<int>(n[0]);
    } else if (flag == "--check") {
      if (v != "nearest" && v != "nearest-exact" && v != "linear") {
        usage("--check must be nearest, nearest-exact or linear, got '" + v + "'");
      }
      a.check = v;
    } else {
      usage("unknown option '" + flag + "'");
    }
  }
  if (a.in.size() < 3 || a.in.size() > 5) usage("--in needs N, C and 1 to 3 spatial sizes");
  if (out_spatial.size() != a.in.size() - 2) usage("--out needs one size per spatial dim of --in");
  a.out = {a.in[0], a.in[1]};
  a.out.insert(a.out.end(), out_spatial.begin(), out_spatial.end());
  return a;
}

Tag tag_for(const std::string& layout, size_t rank) {
  if (layout == "nhwc") return rank == 3 ? Tag::nwc : rank == 4 ? Tag::nhwc : Tag::ndhwc;
  if (layout == "blocked")
    return rank == 3 ? Tag::nCw16c : rank == 4 ? Tag::nChw16c : Tag::nCdhw16c;
  return rank == 3 ? Tag::ncw : rank == 4 ? Tag::nchw : Tag::ncdhw;
}

Tag plain_tag(size_t rank) { return tag_for("nchw", rank); }

int64_t count(const memory::dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

upsample::DType library_dtype(memory::data_type dt) {
  if (dt == memory::data_type::bf16) return upsample::DType::kBFloat16;
  if (dt == memory::data_type::f16) return upsample::DType::kFloat16;
  return upsample::DType::kFloat32;
}

// A memory object with the values of `plain` (f32, plain layout) converted by a reorder.
memory from_plain(const dnnl::engine& eng, dnnl::stream& strm, const memory::desc& md,
                  std::vector<float>& plain) {
  const memory::desc plain_md(md.dims(), memory::data_type::f32, plain_tag(md.dims().size()));
  memory user(plain_md, eng, plain.data());
  memory m(md, eng);
  dnnl::reorder(user, m).execute(strm, user, m);
  strm.wait();
  return m;
}

std::vector<float> to_plain(const dnnl::engine& eng, dnnl::stream& strm, const memory& m) {
  const memory::desc md = m.get_desc();
  std::vector<float> plain(static_cast<size_t>(count(md.dims())));
  const memory::desc plain_md(md.dims(), memory::data_type::f32, plain_tag(md.dims().size()));
  memory user(plain_md, eng, plain.data());
  dnnl::reorder(const_cast<memory&>(m), user).execute(strm, const_cast<memory&>(m), user);
  strm.wait();
  return plain;
}

// Runs the library on `src_plain` (f32 values, representable in the dtype) and returns its
// output as f32, plain layout; sets *error on failure.
std::vector<float> run_library(const Args& a, const dnnl::engine& eng, dnnl::stream& strm,
                               std::vector<float>& src_plain, std::string* error) {
  upsample::OpDesc op;
  op.mode = a.check == "nearest"         ? upsample::Mode::kNearest
            : a.check == "nearest-exact" ? upsample::Mode::kNearestExact
                                         : upsample::Mode::kLinear;
  op.direction = a.backward ? upsample::Direction::kBackward : upsample::Direction::kForward;
  op.spatial_rank = static_cast<int>(a.in.size()) - 2;
  const memory::dims& src_dims = a.backward ? a.out : a.in;
  const memory::dims& dst_dims = a.backward ? a.in : a.out;
  auto desc = [&](const memory::dims& d) {
    upsample::TensorDesc t;
    t.dtype = library_dtype(a.dtype);
    t.rank = static_cast<int>(d.size());
    int64_t stride = 1;
    for (int k = t.rank - 1; k >= 0; --k) {
      t.sizes[k] = d[k];
      t.strides[k] = stride;
      stride *= d[k];
    }
    return t;
  };
  upsample::Plan plan;
  upsample::Status st = upsample::make_plan(op, desc(src_dims), desc(dst_dims), &plan);
  // The library's input and output in the dtype, plain layout, converted by oneDNN reorders.
  memory src =
      from_plain(eng, strm, memory::desc(src_dims, a.dtype, plain_tag(src_dims.size())), src_plain);
  memory dst(memory::desc(dst_dims, a.dtype, plain_tag(dst_dims.size())), eng);
  std::vector<unsigned char> ws(plan.workspace_bytes());
  if (st.ok()) {
    upsample::ExecContext ctx;
    ctx.num_threads = a.threads;
    st = upsample::execute(plan, src.get_data_handle(), dst.get_data_handle(), ws.data(), ws.size(),
                           ctx);
  }
  if (!st.ok()) {
    *error = "library: " + st.message;
    return {};
  }
  return to_plain(eng, strm, dst);
}

struct Outcome {
  std::string layout, error;
  int reps = 0;
  double median = 0, min = 0, max_abs_diff = -1, max_abs_ours = 0;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Outcome run_layout(const Args& a, const std::string& layout, const dnnl::engine& eng,
                   dnnl::stream& strm) {
  Outcome o;
  o.layout = layout;
  const Tag tag = tag_for(layout, a.in.size());
  const memory::desc in_md(a.in, a.dtype, tag), out_md(a.out, a.dtype, tag);
  const memory::dims& src_dims = a.backward ? a.out : a.in;
  std::vector<float> src_plain(static_cast<size_t>(count(src_dims)));
  std::mt19937 rng(12345u);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : src_plain) v = dist(rng);
  try {
    dnnl::primitive prim;
    std::unordered_map<int, memory> args;
    const dnnl::resampling_forward::desc fwd_d(dnnl::prop_kind::forward_training, a.alg, in_md,
                                               out_md);
    const dnnl::resampling_forward::primitive_desc fwd_pd(fwd_d, eng);
    memory src, dst;
    if (!a.backward) {
      prim = dnnl::resampling_forward(fwd_pd);
      src = from_plain(eng, strm, fwd_pd.src_desc(), src_plain);
      dst = memory(fwd_pd.dst_desc(), eng);
      args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    } else {
      const dnnl::resampling_backward::desc bwd_d(a.alg, in_md, out_md);
      const dnnl::resampling_backward::primitive_desc bwd_pd(bwd_d, eng, fwd_pd);
      prim = dnnl::resampling_backward(bwd_pd);
      src = from_plain(eng, strm, bwd_pd.diff_dst_desc(), src_plain);
      dst = memory(bwd_pd.diff_src_desc(), eng);
      args = {{DNNL_ARG_DIFF_DST, src}, {DNNL_ARG_DIFF_SRC, dst}};
    }
    auto once = [&] {
      prim.execute(strm, args);
      strm.wait();
    };
    auto timed = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      once();
      const auto t1 = std::chrono::steady_clock::now();
      return std::chrono::duration<double, std::milli>(t1 - t0).count();
    };
    // As upsample_bench: 3 warm-up runs (adaptive: more, up to 50, until 30 ms are spent; their
    // median sizes R for about 0.5 s of runs, 20 to 5000).
    std::vector<double> warm;
    double spent = 0;
    while (warm.size() < 3 || (a.reps == 0 && warm.size() < 50 && spent < 30.0)) {
      warm.push_back(timed());
      spent += warm.back();
    }
    o.reps = a.reps;
    if (o.reps == 0) {
      const double one = median_of(warm);
      o.reps = static_cast<int>(std::clamp(std::ceil(500.0 / std::max(one, 1e-3)), 20.0, 5000.0));
    }
    std::vector<double> ms;
    for (int i = 0; i < o.reps; ++i) ms.push_back(timed());
    o.median = median_of(ms);
    o.min = *std::min_element(ms.begin(), ms.end());
    if (!a.check.empty()) {
      // The library gets oneDNN's input exactly (its values after conversion to the dtype).
      std::vector<float> seen = to_plain(eng, strm, src);
      const std::vector<float> theirs = to_plain(eng, strm, dst);
      const std::vector<float> ours = run_library(a, eng, strm, seen, &o.error);
      if (!o.error.empty()) return o;
      o.max_abs_diff = 0;
      for (size_t i = 0; i < ours.size(); ++i) {
        o.max_abs_diff =
            std::max(o.max_abs_diff, static_cast<double>(std::fabs(ours[i] - theirs[i])));
        o.max_abs_ours = std::max(o.max_abs_ours, static_cast<double>(std::fabs(ours[i])));
      }
    }
  } catch (const dnnl::error& e) {
    o.error = std::string(e.what()) + " (status " + std::to_string(e.status) + ")";
  }
  return o;
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += ' ';
    } else {
      o += c;
    }
  }
  return o + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  omp_set_num_threads(a.threads);
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const dnnl_version_t* version = dnnl_version();
  std::string out = "{\"version\": \"" + std::to_string(version->major) + "." +
                    std::to_string(version->minor) + "." + std::to_string(version->patch) +
                    "\", \"results\": [";
  for (size_t i = 0; i < a.layouts.size(); ++i) {
    const Outcome o = run_layout(a, a.layouts[i], eng, strm);
    out += i ? ", " : "";
    out += "{\"layout\": " + json_string(o.layout);
    if (!o.error.empty()) {
      out += ", \"error\": " + json_string(o.error) + "}";
      continue;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, ", \"reps\": %d, \"ms_median\": %.6f, \"ms_min\": %.6f", o.reps,
                  o.median, o.min);
    out += buf;
    if (o.max_abs_diff >= 0) {
      std::snprintf(buf, sizeof buf, ", \"max_abs_diff\": %.9g, \"max_abs_ours\": %.9g",
                    o.max_abs_diff, o.max_abs_ours);
      out += buf;
    }
    out += "}";
  }
  std::printf("%s]}\n", out.c_str());
  return 0;
}
