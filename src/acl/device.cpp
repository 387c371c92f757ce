// Device and context: aclInit / aclFinalize, the one device (the host CPU, device 0), and the
// context options of aclrtCtxGetSysParamOpt / aclrtCtxSetSysParamOpt.
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>

#include "acl/acl.h"
#include "acl/enum_value.hpp"
#include "acl/errors.hpp"
#include "acl/memory.hpp"
#include "acl/streams.hpp"

namespace upsample::acl {
namespace {

constexpr int32_t kOnlyDevice = 0;

aclError check_device(const char* api, int32_t device_id) {
  if (device_id != kOnlyDevice) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": deviceId ", device_id,
                " does not exist (only device 0, the CPU, is available)");
  }
  return ACL_SUCCESS;
}

constexpr int kSysParamOptCount = ACL_OPT_ENABLE_KERNEL_EARLY_START + 1;

struct SysParamOpts {
  std::mutex mutex;
  std::array<int64_t, kSysParamOptCount> values{};  // unset options read as 0
};

SysParamOpts& context_options() {
  static SysParamOpts* const options = new SysParamOpts;
  return *options;
}

// `opt`: the raw value of an aclSysParamOpt argument (enum_value.hpp).
aclError check_sys_param_opt(const char* api, int64_t opt) {
  if (opt < 0 || opt >= kSysParamOptCount) {
    return fail(ACL_ERROR_INVALID_PARAM, api, ": opt ", opt, " is not an aclSysParamOpt value (0..",
                kSysParamOptCount - 1, ")");
  }
  return ACL_SUCCESS;
}

// NULL and "" both mean "defaults" (CANN samples pass either); otherwise the configuration must
// be a readable file. The aclrtMalloc cache limit is (re)read from the environment.
aclError init(const char* config_path) {
  if (config_path != nullptr && config_path[0] != '\0') {
    std::error_code error;
    const bool regular = std::filesystem::is_regular_file(config_path, error);
    std::ifstream config(config_path);
    if (!regular || !config.good()) {
      return fail(ACL_ERROR_INVALID_PARAM, "aclInit: configPath \"", config_path,
                  "\" is not a readable file");
    }
  }
  return configure_device_cache("aclInit");
}

aclError finalize() {
  const aclError status = destroy_all_streams("aclFinalize");
  if (status != ACL_SUCCESS) return status;
  release_device_cache();
  return ACL_SUCCESS;
}

aclError reset_device(int32_t device_id) {
  const aclError status = check_device("aclrtResetDevice", device_id);
  if (status != ACL_SUCCESS) return status;
  release_device_cache();
  return ACL_SUCCESS;
}

aclError get_sys_param_opt(int64_t opt, int64_t* value) {
  const aclError status = check_sys_param_opt("aclrtCtxGetSysParamOpt", opt);
  if (status != ACL_SUCCESS) return status;
  if (value == nullptr) {
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetSysParamOpt: value is null");
  }
  SysParamOpts& options = context_options();
  std::lock_guard<std::mutex> lock(options.mutex);
  *value = options.values[static_cast<size_t>(opt)];
  return ACL_SUCCESS;
}

aclError set_sys_param_opt(int64_t opt, int64_t value) {
  const aclError status = check_sys_param_opt("aclrtCtxSetSysParamOpt", opt);
  if (status != ACL_SUCCESS) return status;
  // ACL_OPT_DETERMINISTIC takes a level (0 off .. 3 batch consistency); the others are switches.
  const int64_t max_value = opt == ACL_OPT_DETERMINISTIC ? 3 : 1;
  if (value < 0 || value > max_value) {
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxSetSysParamOpt: value ", value,
                " is out of range 0..", max_value, " for opt ", opt);
  }
  SysParamOpts& options = context_options();
  std::lock_guard<std::mutex> lock(options.mutex);
  options.values[static_cast<size_t>(opt)] = value;
  return ACL_SUCCESS;
}

}  // namespace
}  // namespace upsample::acl

// ---------------------------------------------------------------------------------------------
// The C API. Visibility comes from the declarations' ACL_FUNC_VISIBILITY.

using upsample::acl::fail;
using upsample::acl::guard_c_api;
using upsample::acl::kAclFailure;

extern "C" {

aclError aclInit(const char* configPath) {
  return guard_c_api("aclInit", kAclFailure, [&] { return upsample::acl::init(configPath); });
}

aclError aclFinalize(void) {
  return guard_c_api("aclFinalize", kAclFailure, [] { return upsample::acl::finalize(); });
}

aclError aclrtSetDevice(int32_t deviceId) {
  return guard_c_api("aclrtSetDevice", kAclFailure,
                     [&] { return upsample::acl::check_device("aclrtSetDevice", deviceId); });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return guard_c_api("aclrtResetDevice", kAclFailure,
                     [&] { return upsample::acl::reset_device(deviceId); });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return guard_c_api("aclrtGetDevice", kAclFailure, [&]() -> aclError {
    if (deviceId == nullptr) {
      return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is null");
    }
    *deviceId = upsample::acl::kOnlyDevice;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return guard_c_api("aclrtGetDeviceCount", kAclFailure, [&]() -> aclError {
    if (count == nullptr)
      return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is null");
    *count = 1;
    return ACL_SUCCESS;
  });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return guard_c_api("aclrtCtxGetSysParamOpt", kAclFailure, [&] {
    return upsample::acl::get_sys_param_opt(upsample::acl::enum_value(opt), value);
  });
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return guard_c_api("aclrtCtxSetSysParamOpt", kAclFailure, [&] {
    return upsample::acl::set_sys_param_opt(upsample::acl::enum_value(opt), value);
  });
}

}  // extern "C"
