/* Calls of the acl runtime as a C program makes them: enum arguments passed as any int.
 * In C++ an enum argument outside its enumerators' range is undefined behaviour in the caller
 * already, so the tests pass such values through these C functions (acl_c_callers.c). */
#ifndef UPSAMPLE_TESTS_CPP_ACL_C_CALLERS_H_
#define UPSAMPLE_TESTS_CPP_ACL_C_CALLERS_H_

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclError c_call_malloc(void** dev_ptr, size_t size, int policy);
aclError c_call_memcpy(void* dst, size_t dest_max, const void* src, size_t count, int kind);
aclError c_call_memcpy_async(void* dst, size_t dest_max, const void* src, size_t count, int kind,
                             aclrtStream stream);
aclError c_call_get_sys_param_opt(int opt, int64_t* value);
aclError c_call_set_sys_param_opt(int opt, int64_t value);
aclTensor* c_call_create_tensor(const int64_t* dims, uint64_t dims_num, int data_type, int format,
                                void* data);

#ifdef __cplusplus
}
#endif

#endif /* UPSAMPLE_TESTS_CPP_ACL_C_CALLERS_H_ */
