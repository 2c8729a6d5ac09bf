# The installed package works: a program from examples/ builds against it.
find_program(PKG_CONFIG_EXECUTABLE pkg-config)
if(PKG_CONFIG_EXECUTABLE)
  add_test(NAME install COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 300)
else()
  message(WARNING "pkg-config not found: the install test is skipped")
endif()
