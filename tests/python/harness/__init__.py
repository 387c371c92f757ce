"""The machinery of the test suites of tests/python: the library's C API through ctypes and
everything the suites share (test_parity_*.py, test_api_*.py), and the `upsample` tool's
(test_cli*.py). One module per concern:

* `storage`: acl dtype and format codes, numpy storage of each dtype, bfloat16 conversions, raw
  storage bits (special values, sentinels);
* `aclnn`: loading libupsample.so and the ctypes bindings of the acl runtime, the aclnn meta
  objects and the upsample operators (`Acl.call` runs both phases), `TensorBuf`;
* `tensors`: tensors over raw storage whose bytes outside the view hold a sentinel, and the
  dims of a logical shape in a format's order;
* `torch_reference`: the torch 1.13 references (aten ops, folded identity axes, the nearest
  index map, per-axis weights);
* `cases`: an entry point's rules (`Op`), one call (`Case`), source data and case generation;
* `compare`: bit-exact and tolerance comparisons, the largest-error summary;
* `report`: pass / fail counting and the closing lines of a suite;
* `parity`: running and judging one parity case, determinism across thread counts, the body of
  a parity suite;
* `api`: the API-contract checks and the body of an API suite;
* `cli`: the `upsample` tool's suites (test_cli*.py): running the tool, their shared count.

The parity suites are the oracle of the library's entry point rules: they state each rule
themselves and read nothing of the library's own table (src/aclnn/entry_table.hpp).
"""
