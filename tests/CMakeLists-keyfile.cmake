# Tests of the key-file module of the `bitonic` tool (tools/bitonic/key_file.c),
# included by tests/CMakeLists.txt. The module is plain C with no library
# dependency but POSIX threads, so its test builds it from source rather than
# linking the tool.
# test_key_file_large takes the files of tens of MiB, read and written by threads.
foreach(test key_file key_file_large)
  add_executable(test_${test}
    ${CMAKE_CURRENT_LIST_DIR}/test_${test}.c
    ${PROJECT_SOURCE_DIR}/tools/bitonic/key_file.c
    ${PROJECT_SOURCE_DIR}/tools/bitonic/npy_header.c
    ${PROJECT_SOURCE_DIR}/tools/bitonic/output_file.c)
  target_include_directories(test_${test} PRIVATE ${PROJECT_SOURCE_DIR}/tools/bitonic)
  target_link_libraries(test_${test} PRIVATE bitonic_build_flags Threads::Threads)
  add_test(NAME ${test} COMMAND test_${test})
endforeach()

# The libFuzzer target needs clang. Its smoke test fuzzes for a bounded time:
# new inputs go to a corpus folder in the build tree (libFuzzer writes into
# the first folder it is given), the seeds in the source tree stay read-only,
# and a crashing input is saved next to it as fuzz_key_file-crash-*.
if(BITONIC_BUILD_FUZZERS)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_executable(fuzz_key_file
      ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_key_file.c
      ${PROJECT_SOURCE_DIR}/tools/bitonic/key_file.c
      ${PROJECT_SOURCE_DIR}/tools/bitonic/npy_header.c
      ${PROJECT_SOURCE_DIR}/tools/bitonic/output_file.c)
    target_include_directories(fuzz_key_file PRIVATE ${PROJECT_SOURCE_DIR}/tools/bitonic)
    target_compile_options(fuzz_key_file PRIVATE
      -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
    target_link_options(fuzz_key_file PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_key_file PRIVATE bitonic_build_flags Threads::Threads)

    set(fuzz_key_file_corpus ${CMAKE_CURRENT_BINARY_DIR}/fuzz_key_file_corpus)
    file(MAKE_DIRECTORY ${fuzz_key_file_corpus})
    add_test(NAME fuzz_key_file_smoke
      COMMAND fuzz_key_file -max_total_time=20 -runs=5000000
              -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz_key_file-
              ${fuzz_key_file_corpus} ${CMAKE_CURRENT_LIST_DIR}/fuzz/corpus)
    set_tests_properties(fuzz_key_file_smoke PROPERTIES TIMEOUT 120)
  else()
    message(WARNING "BITONIC_BUILD_FUZZERS needs clang (libFuzzer); "
                    "the C compiler is ${CMAKE_C_COMPILER_ID}, so fuzz_key_file is not built")
  endif()
endif()
