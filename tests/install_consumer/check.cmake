# ctest driver: install the build tree to a scratch prefix, then configure, build and run the
# consumer against it. Run with -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=...
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
# Both standards, each from a .cpp and a .cu file, with the CMake and nvcc of this machine.
foreach(standard 17 20)
  set(build "${WORK_DIR}/build-${standard}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${build}"
                          "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCONSUMER_STANDARD=${standard}"
                          "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
                          "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "configuring the C++${standard} consumer with find_package(ladder) failed: ${rc}")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building the C++${standard} consumer failed: ${rc}")
  endif()
  foreach(program consumer consumer_cuda)
    execute_process(COMMAND "${build}/${program}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 AND NOT rc EQUAL 77)
      message(FATAL_ERROR "the C++${standard} ${program} failed: ${rc}")
    endif()
  endforeach()
endforeach()
