# ctest driver: install the build tree to a scratch prefix, then configure and build the project at
# SOURCE_DIR against it, once per standard in STANDARDS (comma-separated, passed to the project as
# CONSUMER_STANDARD; none: one build), and run each program in PROGRAMS (comma-separated; 77, "no
# GPU", counts as a pass). Run with -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=...
# -DCUDA_ARCHITECTURES=... -DCUDA_COMPILER=... [-DSTANDARDS=17,20] [-DPROGRAMS=a,b]
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
string(REPLACE "," ";" standards "${STANDARDS}")
string(REPLACE "," ";" programs "${PROGRAMS}")
if(NOT standards)
  set(standards default)
endif()
foreach(standard IN LISTS standards)
  set(build "${WORK_DIR}/build-${standard}")
  set(standard_option "")
  if(NOT standard STREQUAL "default")
    set(standard_option "-DCONSUMER_STANDARD=${standard}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${build}"
                          "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" ${standard_option}
                          "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
                          "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "configuring ${SOURCE_DIR} (standard ${standard}) against the installed package failed: ${rc}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building ${SOURCE_DIR} (standard ${standard}) failed: ${rc}")
  endif()
  foreach(program IN LISTS programs)
    execute_process(COMMAND "${build}/${program}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 AND NOT rc EQUAL 77)
      message(FATAL_ERROR "${program} (standard ${standard}) failed: ${rc}")
    endif()
  endforeach()
endforeach()
