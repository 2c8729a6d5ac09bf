# The boids app's tests, include()d by tests/CMakeLists.txt when apps/boids is
# built: the exactness proof of the sorted neighbour searches, a headless render
# checked pixel by pixel, the bench line, the video path and the command line.
# All run with the validation layer on (a message fails them), in seconds on
# lavapipe.
find_package(Python3 COMPONENTS Interpreter)
# tests/ is configured before apps/, so test for the app by its option and folder.
if(BITONIC_BUILD_APPS AND EXISTS ${PROJECT_SOURCE_DIR}/apps/boids/CMakeLists.txt AND Python3_Interpreter_FOUND)
  foreach(part check render bench video options)
    add_test(NAME boids_${part}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/test_boids.py ${part} $<TARGET_FILE:bitonic-boids>)
    set_tests_properties(boids_${part} PROPERTIES TIMEOUT 300)
  endforeach()
endif()
