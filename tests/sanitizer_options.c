// The sanitizers' default options for the programs of a sanitizer build (CMakeLists.txt,
// UPSAMPLE_SANITIZE; docs/reliability.md). Each runtime calls its hook once at start-up;
// ASAN_OPTIONS, UBSAN_OPTIONS and TSAN_OPTIONS in the environment still override them.

// AddressSanitizer: leaks are errors, and so are uses of stack memory after its function
// returned and initialisation-order bugs between translation units.
const char* __asan_default_options(void) {
  return "detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:"
         "strict_init_order=1:strict_string_checks=1";
}

// UndefinedBehaviorSanitizer (built with -fno-sanitize-recover=all, so the first report ends
// the program): with the stack that led to it.
const char* __ubsan_default_options(void) { return "print_stacktrace=1:halt_on_error=1"; }

// ThreadSanitizer: the first race ends the program with a non-zero status. Accesses made inside
// modules built without TSan (the OpenMP runtime, whose synchronisation Archer reports to TSan
// instead) are not checked: Archer's own advice, against false reports from libomp's internals.
const char* __tsan_default_options(void) {
  return "halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1";
}
