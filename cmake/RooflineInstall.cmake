include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS roofline EXPORT rooflineTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS roofline_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY "${PROJECT_BINARY_DIR}/libroofline/python/"
  DESTINATION ${CMAKE_INSTALL_DATADIR}/roofline/python FILES_MATCHING PATTERN "*.py" PATTERN "*.h" PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY include/roofline DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES "${PROJECT_BINARY_DIR}/include/roofline/export.hpp" "${PROJECT_BINARY_DIR}/include/roofline/version.hpp"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofline)
install(EXPORT rooflineTargets NAMESPACE roofline:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)
configure_package_config_file(cmake/rooflineConfig.cmake.in
  "${PROJECT_BINARY_DIR}/rooflineConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/rooflineConfig.cmake" "${PROJECT_BINARY_DIR}/rooflineConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)
# The build tree is usable as a package too (find_package(roofline) with roofline_DIR=<build>).
export(EXPORT rooflineTargets NAMESPACE roofline:: FILE "${PROJECT_BINARY_DIR}/rooflineTargets.cmake")
