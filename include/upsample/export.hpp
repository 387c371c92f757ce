// Symbol visibility of the native API (the library is built with hidden visibility).
#pragma once

#if defined(_WIN32)
#define UPSAMPLE_API
#else
#define UPSAMPLE_API __attribute__((visibility("default")))
#endif
