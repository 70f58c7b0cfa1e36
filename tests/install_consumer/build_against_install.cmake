# ctest driver: install the build tree to a scratch prefix, then configure and build the project
# at SOURCE_DIR against it (no run: what it does needs a GPU). Run with -DBUILD_DIR=...
# -DSOURCE_DIR=... -DWORK_DIR=... -DCUDA_ARCHITECTURES=... -DCUDA_COMPILER=...
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build"
                        "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
                        "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring ${SOURCE_DIR} against the installed package failed: ${rc}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building ${SOURCE_DIR} against the installed package failed: ${rc}")
endif()
