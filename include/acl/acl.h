// acl.h: the umbrella header of the acl runtime, as in CANN.
#ifndef UPSAMPLE_INCLUDE_ACL_ACL_H_
#define UPSAMPLE_INCLUDE_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#endif  // UPSAMPLE_INCLUDE_ACL_ACL_H_
