# The command-line tool as a user meets it (tests/test_cli.py).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(cli_backends "")
  if(BITONIC_HAVE_GLES)
    set(cli_backends gles)
  endif()
  add_test(NAME cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.py $<TARGET_FILE:bitonic_cli>
           ${cli_backends})
  set_tests_properties(cli PROPERTIES TIMEOUT 600)
  add_dependencies(bitonic_cli bitonic_npy_tool)  # the test checks large outputs with it
endif()

# The tool against an adversarial user: FIFOs, long names, signals mid-write,
# malformed settings, and (with MPI) ranks given different files.
if(Python3_Interpreter_FOUND)
  set(cli_hardening_mpi "")
  if(BITONIC_WITH_MPI)
    set(cli_hardening_mpi ${CMAKE_CURRENT_SOURCE_DIR}/run_mpi.sh ${MPIEXEC_EXECUTABLE})
  endif()
  add_test(NAME cli_hardening COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_hardening.py
           $<TARGET_FILE:bitonic_cli> ${cli_hardening_mpi})
  set_tests_properties(cli_hardening PROPERTIES TIMEOUT 300)
endif()

# The benchmark's report tools (bench/report/stability.py, compare.py) on made-up rows.
if(Python3_Interpreter_FOUND)
  add_test(NAME report COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_report.py)
endif()
