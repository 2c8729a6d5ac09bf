# The fast CPU sort's test, include()d by tests/CMakeLists.txt: every target the
# CPU supports, both orders, many lengths and shapes, checked against qsort.
add_executable(test_cpu_sort ${CMAKE_CURRENT_LIST_DIR}/test_cpu_sort.c)
target_include_directories(test_cpu_sort PRIVATE ${PROJECT_SOURCE_DIR}/src/cpu)
target_link_libraries(test_cpu_sort PRIVATE bitonic_internal bitonic_build_flags)
add_test(NAME cpu_sort COMMAND test_cpu_sort)
set_tests_properties(cpu_sort PROPERTIES TIMEOUT 300)

# The passes around the sort (packing pairs, order maps) on several threads, and
# the pair buffer a CPU context keeps between calls.
add_executable(test_cpu_passes ${CMAKE_CURRENT_LIST_DIR}/test_cpu_passes.c)
target_link_libraries(test_cpu_passes PRIVATE bitonic_internal bitonic_build_flags)
add_test(NAME cpu_passes COMMAND test_cpu_passes)
set_tests_properties(cpu_passes PROPERTIES TIMEOUT 300)

# The stable radix sort of pairs with 32-bit keys, against qsort by (key,
# position), over key distributions that reach each of its ways.
add_executable(test_stable_radix ${CMAKE_CURRENT_LIST_DIR}/test_stable_radix.c)
target_include_directories(test_stable_radix PRIVATE ${PROJECT_SOURCE_DIR}/src/cpu ${PROJECT_SOURCE_DIR}/src/core)
target_link_libraries(test_stable_radix PRIVATE bitonic_internal bitonic_build_flags)
add_test(NAME stable_radix COMMAND test_stable_radix)
set_tests_properties(stable_radix PROPERTIES TIMEOUT 300)
add_executable(test_stable_radix64 ${CMAKE_CURRENT_LIST_DIR}/test_stable_radix64.c)
target_include_directories(test_stable_radix64 PRIVATE ${PROJECT_SOURCE_DIR}/src/cpu ${PROJECT_SOURCE_DIR}/src/core)
target_link_libraries(test_stable_radix64 PRIVATE bitonic_internal bitonic_build_flags)
add_test(NAME stable_radix64 COMMAND test_stable_radix64)
set_tests_properties(stable_radix64 PROPERTIES TIMEOUT 300)
