# The distributed sort (bitonic_mpi), include()d by tests/CMakeLists.txt when MPI
# was found: the library on 1 to 4 ranks (tests/test_mpi_sort.c) on the CPU path
# and, for a small subset, on a Vulkan device (lavapipe here), the API.md example,
# and `bitonic sort --distributed` (tests/test_mpi_cli.py). Ranks are
# oversubscribed: CI has 2 cores.
if(BITONIC_WITH_MPI)
  set(bitonic_mpirun sh ${CMAKE_CURRENT_LIST_DIR}/run_mpi.sh ${MPIEXEC_EXECUTABLE})
  add_executable(test_mpi_sort ${CMAKE_CURRENT_LIST_DIR}/test_mpi_sort.c)
  target_link_libraries(test_mpi_sort PRIVATE bitonic_mpi bitonic_build_flags)
  foreach(ranks 1 2 3 4)
    add_test(NAME mpi_sort_${ranks} COMMAND ${bitonic_mpirun} ${ranks} $<TARGET_FILE:test_mpi_sort> cpu)
  endforeach()
  add_test(NAME mpi_sort_vulkan COMMAND ${bitonic_mpirun} 2 $<TARGET_FILE:test_mpi_sort> vulkan --quick)
  # Ranks on different backends sort together: the CPU path beside a Vulkan device.
  add_test(NAME mpi_sort_mixed COMMAND ${bitonic_mpirun} 3 $<TARGET_FILE:test_mpi_sort> cpu,vulkan --quick)
  set_tests_properties(mpi_sort_1 mpi_sort_2 mpi_sort_3 mpi_sort_4 mpi_sort_vulkan mpi_sort_mixed PROPERTIES TIMEOUT 300)
endif()
if(BITONIC_WITH_MPI)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    add_test(NAME mpi_cli COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_mpi_cli.py
             ${CMAKE_CURRENT_LIST_DIR}/run_mpi.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:bitonic_cli>)
    set_tests_properties(mpi_cli PROPERTIES TIMEOUT 300)
  endif()
endif()
# The example docs/API.md quotes, on 2 ranks.
if(BITONIC_WITH_MPI)
  add_executable(mpi_sort_example ${PROJECT_SOURCE_DIR}/examples/mpi_sort.c)
  target_link_libraries(mpi_sort_example PRIVATE bitonic_mpi bitonic_build_flags)
  add_test(NAME mpi_example COMMAND ${bitonic_mpirun} 2 $<TARGET_FILE:mpi_sort_example> cpu)
  set_tests_properties(mpi_example PROPERTIES TIMEOUT 120)
endif()
