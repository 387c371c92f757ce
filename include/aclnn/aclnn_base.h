// aclnn_base.h: what every aclnnop/aclnn_*.h operator header includes, as in CANN.
#ifndef UPSAMPLE_INCLUDE_ACLNN_ACLNN_BASE_H_
#define UPSAMPLE_INCLUDE_ACLNN_ACLNN_BASE_H_

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#ifndef ACLNN_API
#if defined(__GNUC__) || defined(__clang__)
#define ACLNN_API __attribute__((visibility("default")))
#else
#define ACLNN_API
#endif
#endif

#endif  // UPSAMPLE_INCLUDE_ACLNN_ACLNN_BASE_H_
