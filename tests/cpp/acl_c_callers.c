/* Calls of the acl runtime with enum arguments passed as any int (see acl_c_callers.h). */
#include "cpp/acl_c_callers.h"

aclError c_call_malloc(void** dev_ptr, size_t size, int policy) {
  return aclrtMalloc(dev_ptr, size, (aclrtMemMallocPolicy)policy);
}

aclError c_call_memcpy(void* dst, size_t dest_max, const void* src, size_t count, int kind) {
  return aclrtMemcpy(dst, dest_max, src, count, (aclrtMemcpyKind)kind);
}

aclError c_call_memcpy_async(void* dst, size_t dest_max, const void* src, size_t count, int kind,
                             aclrtStream stream) {
  return aclrtMemcpyAsync(dst, dest_max, src, count, (aclrtMemcpyKind)kind, stream);
}

aclError c_call_get_sys_param_opt(int opt, int64_t* value) {
  return aclrtCtxGetSysParamOpt((aclSysParamOpt)opt, value);
}

aclError c_call_set_sys_param_opt(int opt, int64_t value) {
  return aclrtCtxSetSysParamOpt((aclSysParamOpt)opt, value);
}

aclTensor* c_call_create_tensor(const int64_t* dims, uint64_t dims_num, int data_type, int format,
                                void* data) {
  return aclCreateTensor(dims, dims_num, (aclDataType)data_type, NULL, 0, (aclFormat)format, dims,
                         dims_num, data);
}
