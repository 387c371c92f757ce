"""acl dtype codes and how their values are stored: the numpy storage type of each dtype,
float32 <-> bfloat16 (round to nearest even; NaN stays a quiet NaN), values <-> raw storage,
and raw storage bits (special values, the sentinel of unwritten output elements).

bfloat16 has no numpy type: its storage is the raw uint16 bits.
"""

import numpy as np

# Dtype codes (CANN acl_base_rt.h).
ACL_DT_UNDEFINED = -1
ACL_FLOAT = 0
ACL_FLOAT16 = 1
ACL_INT8 = 2
ACL_INT32 = 3
ACL_UINT8 = 4
ACL_INT64 = 9
ACL_DOUBLE = 11
ACL_BF16 = 27

DTYPE_NAMES = {ACL_FLOAT: "f32", ACL_FLOAT16: "f16", ACL_BF16: "bf16", ACL_DOUBLE: "f64",
               ACL_UINT8: "u8", ACL_INT32: "i32", ACL_INT8: "i8", ACL_INT64: "i64"}

# numpy storage type of each acl dtype (bf16 is kept as its raw uint16 bits).
STORAGE_NP = {ACL_FLOAT: np.float32, ACL_FLOAT16: np.float16, ACL_DOUBLE: np.float64,
              ACL_BF16: np.uint16, ACL_UINT8: np.uint8, ACL_INT32: np.int32,
              ACL_INT8: np.int8, ACL_INT64: np.int64}

FLOAT_DTYPES = [ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE]
NEAREST_FWD_DTYPES = FLOAT_DTYPES + [ACL_UINT8]


# ---------------------------------------------------------------------------------------------
# bfloat16 <-> float32, values <-> storage.

def f32_to_bf16_bits(a):
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float32))
    u = a.view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        out[nan] = ((u[nan] >> 16) | 0x0040).astype(np.uint16)  # keep sign, force quiet
    return out


def bf16_bits_to_f32(b):
    b = np.ascontiguousarray(np.asarray(b, dtype=np.uint16))
    return (b.astype(np.uint32) << 16).view(np.float32)


def round_to_dtype(a_f32, acl_dtype):
    """float32 values -> the nearest values of acl_dtype, returned as float32 (bf16) /
    float16 / float32 / float64 numpy arrays whose values are exactly representable."""
    if acl_dtype == ACL_BF16:
        return bf16_bits_to_f32(f32_to_bf16_bits(a_f32))
    if acl_dtype == ACL_FLOAT16:
        return np.asarray(a_f32, dtype=np.float32).astype(np.float16)
    if acl_dtype == ACL_FLOAT:
        return np.asarray(a_f32, dtype=np.float32)
    if acl_dtype == ACL_DOUBLE:
        return np.asarray(a_f32, dtype=np.float64)
    raise ValueError("round_to_dtype: unsupported dtype %r" % acl_dtype)


def to_storage(values, acl_dtype):
    """Values (any float array) -> the raw numpy storage representation of acl_dtype."""
    if acl_dtype == ACL_BF16:
        return f32_to_bf16_bits(np.asarray(values, dtype=np.float32))
    return np.asarray(values).astype(STORAGE_NP[acl_dtype])


def from_storage(raw, acl_dtype):
    """Raw storage -> values (float16 / float32 / float64; bf16 widened exactly to float32)."""
    if acl_dtype == ACL_BF16:
        return bf16_bits_to_f32(raw)
    return np.array(raw, copy=True)


def values_of(raw, dtype):
    """Raw storage -> float64 values."""
    return from_storage(raw, dtype).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# Raw storage bits.

# Special bit patterns: +inf, -inf, quiet NaN with a payload, negative quiet NaN with a payload,
# signalling NaN, -0.0.
SPECIAL_BITS = {
    ACL_FLOAT: (np.uint32, [0x7F800000, 0xFF800000, 0x7FC12345, 0xFFC00077, 0x7F800123,
                            0x80000000]),
    ACL_FLOAT16: (np.uint16, [0x7C00, 0xFC00, 0x7E55, 0xFE01, 0x7C05, 0x8000]),
    ACL_BF16: (np.uint16, [0x7F80, 0xFF80, 0x7FC5, 0xFFC1, 0x7F81, 0x8000]),
    ACL_DOUBLE: (np.uint64, [0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8123456789ABC,
                             0xFFF8000000000077, 0x7FF0000000000123, 0x8000000000000000]),
}
# numpy's NaN (positive, quiet, no payload) in each dtype.
DEFAULT_NAN_BITS = {ACL_FLOAT: 0x7FC00000, ACL_FLOAT16: 0x7E00, ACL_BF16: 0x7FC0,
                    ACL_DOUBLE: 0x7FF8000000000000}
# A sentinel that no source holds, for the output storage.
SENTINEL_BITS = {ACL_FLOAT: 0xFFA5A5A5, ACL_FLOAT16: 0xFDA5, ACL_BF16: 0xFFA5,
                 ACL_DOUBLE: 0xFFF5A5A5A5A5A5A5, ACL_UINT8: 0xA5}

_UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(a):
    """The raw bits of an array, as unsigned integers of its item size."""
    a = np.ascontiguousarray(a)
    return a.view(_UINT_OF_SIZE[a.itemsize])


def raw_from_bits(bit_values, dtype):
    st = STORAGE_NP[dtype]
    return np.asarray(bit_values, dtype=_UINT_OF_SIZE[np.dtype(st).itemsize]).view(st)
