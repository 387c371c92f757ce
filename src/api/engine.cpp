// The native API: make_plan() = validate -> plan structure -> memory check -> tables -> compile
// for the CPU backend; execute() = checks -> run.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <new>
#include <sstream>
#include <type_traits>

#include "api/limits.hpp"
#include "core/checked.hpp"
#include "core/executable.hpp"
#include "core/layout.hpp"
#include "core/plan.hpp"
#include "core/validate.hpp"
#include "cpu/backend.hpp"
#include "cpu/threads.hpp"
#include "upsample/resample.hpp"

namespace upsample {

struct Plan::Impl {
  OpDesc op;
  TensorDesc src;
  TensorDesc dst;
  bool empty = false;
  std::unique_ptr<core::Executable> exe;  // null when empty
};

namespace {

// UPSAMPLE_MAX_BYTES: bytes with an optional K, M or G suffix (binary units). 0 when unset or
// malformed.
size_t max_bytes_from_env() {
  const char* env = std::getenv("UPSAMPLE_MAX_BYTES");
  if (env == nullptr) return 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(env, &end, 10);
  if (end == env) return 0;
  unsigned shift = 0;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case '\0':
      break;
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    default:
      return 0;
  }
  if (n > (SIZE_MAX >> shift)) return SIZE_MAX;
  return static_cast<size_t>(n) << shift;
}

template <typename W>
Status build(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst,
             const PlanOptions& options, Plan::Impl* impl) {
  core::PlanLimits limits;
  if (options.table_budget > 0) {
    limits.table_budget = static_cast<int64_t>(std::min<size_t>(options.table_budget, INT64_MAX));
  }
  const core::Backend& backend = cpu::backend();
  core::Plan<W> plan;
  if (Status st = core::plan_structure<W>(op, src, dst, limits, &plan, &backend); !st.ok()) {
    return st;
  }
  if (plan.empty) return Status::Ok();
  // Phase-1 memory, known before anything proportional to an axis is allocated.
  const int64_t needed = core::phase_one_bytes(plan, backend);
  const size_t limit = api::resolved_max_bytes(options);
  if (static_cast<uint64_t>(needed) > limit) {
    std::ostringstream why;
    why << "the weight tables for " << src.to_string() << " -> " << dst.to_string()
        << " would take " << needed << " bytes, more than the limit of " << limit
        << " bytes (PlanOptions::max_bytes / UPSAMPLE_MAX_BYTES)";
    return Status::Invalid(why.str());
  }
  core::build_tables(&plan);
  std::unique_ptr<core::Executable> exe = backend.compile(std::move(plan));
  if (exe->workspace_bytes() > static_cast<size_t>(INT64_MAX)) {
    std::ostringstream why;
    why << "the workspace for " << src.to_string() << " -> " << dst.to_string()
        << " would hold more bytes than int64 can count";
    return Status::Invalid(why.str());
  }
  // The caller allocates the workspace, but a call whose workspace exceeds the limit cannot run
  // within it either: a claimed view (zero strides over a tiny buffer) must not make a caller
  // allocate terabytes.
  if (exe->workspace_bytes() > limit) {
    std::ostringstream why;
    why << "the workspace for " << src.to_string() << " -> " << dst.to_string() << " would take "
        << exe->workspace_bytes() << " bytes, more than the limit of " << limit
        << " bytes (PlanOptions::max_bytes / UPSAMPLE_MAX_BYTES)";
    return Status::Invalid(why.str());
  }
  impl->exe = std::move(exe);
  return Status::Ok();
}

}  // namespace

namespace api {

size_t resolved_max_bytes(const PlanOptions& options) {
  if (options.max_bytes > 0) return options.max_bytes;
  if (const size_t env = max_bytes_from_env(); env > 0) return env;
  // sysconf(_SC_PHYS_PAGES) is a system call: once per process, not once per plan.
  static const size_t half_physical = [] {
    const double physical =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    return physical > 0 ? static_cast<size_t>(physical / 2) : SIZE_MAX;
  }();
  return half_physical;
}

}  // namespace api

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kNearest:
      return "nearest";
    case Mode::kNearestExact:
      return "nearest-exact";
    case Mode::kLinear:
      return "linear";
    case Mode::kCubic:
      return "cubic";
    case Mode::kArea:
      return "area";
  }
  return "?";
}

int default_num_threads() { return cpu::default_threads(); }

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(const Plan&) = default;
Plan& Plan::operator=(const Plan&) = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

size_t Plan::workspace_bytes() const {
  return impl_ && impl_->exe ? impl_->exe->workspace_bytes() : 0;
}
size_t Plan::held_bytes() const {
  return impl_ && impl_->exe ? static_cast<size_t>(impl_->exe->held_bytes()) : 0;
}
bool Plan::empty() const { return impl_ == nullptr || impl_->empty; }

std::string Plan::describe() const {
  if (!impl_) return "invalid plan";
  const Impl& p = *impl_;
  std::ostringstream os;
  os << mode_name(p.op.mode) << (p.op.antialias ? "+aa" : "")
     << (p.op.align_corners ? " align_corners" : "")
     << (p.op.direction == Direction::kForward ? " forward " : " backward ") << p.src.to_string()
     << " -> " << p.dst.to_string();
  if (p.empty) {
    os << ": empty, nothing to do";
  } else {
    os << "\n" << p.exe->describe();
  }
  return os.str();
}

namespace {

// The native API never throws: running out of memory is reported as a Status (whose message is
// short enough to need no allocation when even the detailed one cannot be built).
template <typename Body>
Status guarded(Body&& body, const TensorDesc& src, const TensorDesc& dst) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    try {
      return Status::Internal("out of memory while planning or running " + src.to_string() +
                              " -> " + dst.to_string());
    } catch (const std::bad_alloc&) {
      return Status::Internal("out of memory");
    }
  }
}

}  // namespace

Status make_plan(const OpDesc& op, const TensorDesc& src, const TensorDesc& dst, Plan* plan,
                 const PlanOptions& options) {
  if (plan == nullptr) return Status::NullPointer("make_plan: plan is null");
  return guarded(
      [&] {
        if (Status st = core::validate(op, src, dst); !st.ok()) return st;
        auto impl = std::make_shared<Plan::Impl>();
        impl->op = op;
        impl->src = src;
        impl->dst = dst;
        impl->empty = dst.numel() == 0;
        const Status st = src.dtype == DType::kFloat64
                              ? build<double>(op, src, dst, options, impl.get())
                              : build<float>(op, src, dst, options, impl.get());
        if (st.ok()) plan->impl_ = std::move(impl);
        return st;
      },
      src, dst);
}

Status execute(const Plan& plan, const void* src, void* dst, void* workspace,
               size_t workspace_bytes, const ExecContext& ctx) {
  const Plan::Impl* p = plan.impl();
  if (p == nullptr) return Status::Invalid("execute: the plan is not valid (make_plan failed?)");
  if (p->empty) return Status::Ok();
  return guarded(
      [&] {
        if (src == nullptr) return Status::NullPointer("execute: src is null");
        if (dst == nullptr) return Status::NullPointer("execute: dst is null");
        const size_t needed = p->exe->workspace_bytes();
        if (needed > 0 && (workspace == nullptr || workspace_bytes < needed)) {
          std::ostringstream why;
          why << "execute: the plan needs a workspace of " << needed << " bytes, got "
              << (workspace == nullptr ? 0 : workspace_bytes)
              << (workspace == nullptr ? " (null)" : "");
          return Status::Invalid(why.str());
        }
        bool undecided = false;
        if (core::views_overlap({&p->src, reinterpret_cast<uintptr_t>(src)},
                                {&p->dst, reinterpret_cast<uintptr_t>(dst)}, &undecided)) {
          std::ostringstream why;
          why << "execute: dst " << p->dst.to_string() << " at " << dst << " overlaps src "
              << p->src.to_string() << " at " << src
              << (undecided ? " (the views interleave too finely to rule an overlap out)" : "");
          return Status::Invalid(why.str());
        }
        return p->exe->run(src, dst, workspace, ctx);
      },
      p->src, p->dst);
}

}  // namespace upsample
