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
# The .pc files find their prefix from their own place (lib/pkgconfig, or
# lib/<multiarch>/pkgconfig), so an installed tree can be moved. A static
# library names its dependencies in Libs, so that `pkg-config --libs bitonic`
# alone links; a shared one keeps them private.
# (BITONIC_PC_PREFIX_FROM_PCFILEDIR: the top-level CMakeLists.txt.)
get_target_property(bitonic_install_type bitonic TYPE)
if(bitonic_install_type STREQUAL "STATIC_LIBRARY")
  set(BITONIC_PC_REQUIRES "Requires: vulkan")
  set(BITONIC_PC_LIBS "-lpthread ${BITONIC_PC_GLES_LINK} -lm")
  set(BITONIC_PC_LIBS_PRIVATE "")
else()
  set(BITONIC_PC_REQUIRES "Requires.private: vulkan")
  set(BITONIC_PC_LIBS "")
  set(BITONIC_PC_LIBS_PRIVATE "Libs.private: -lpthread ${BITONIC_PC_GLES_LINK} -lm")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/bitonic.pc.in ${PROJECT_BINARY_DIR}/bitonic.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/bitonic.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
