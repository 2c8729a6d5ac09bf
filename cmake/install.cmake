# Installation: the library, its headers, a pkg-config file and a CMake package
# (find_package(bitonic) gives the target bitonic::bitonic).
include(CMakePackageConfigHelpers)
install(TARGETS bitonic EXPORT bitonicTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT bitonicTargets NAMESPACE bitonic:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bitonic)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/bitonicConfig.cmake.in
  ${PROJECT_BINARY_DIR}/bitonicConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bitonic)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/bitonicConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/bitonicConfig.cmake ${PROJECT_BINARY_DIR}/bitonicConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/bitonic)
configure_file(${PROJECT_SOURCE_DIR}/cmake/bitonic.pc.in ${PROJECT_BINARY_DIR}/bitonic.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bitonic.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
