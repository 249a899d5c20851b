# Read by ctest after doctest_discover_tests' list of quote_lab_process_tests: every case
# that starts a real lab or Redis is a `process` test that the sanitizer phases also run.
foreach(test IN LISTS quote_lab_process_tests_TESTS)
  set_tests_properties("${test}" PROPERTIES LABELS "process;sanitize")
endforeach()
