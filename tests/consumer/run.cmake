# ctest InstalledPackage.Consumer: installs the build BUILD_DIR into WORK_DIR/prefix, then builds
# and runs the consumer project CONSUMER_DIR against it twice: with CMake (find_package(grundy),
# grundy::grundy) and with pkg-config (grundy.pc). Fails on the first step that fails.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/grundy include/grundy/grundy.hpp include/grundy/engine.hpp include/grundy/version.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()

# CMake: only the install prefix is given, nothing of the build tree.
step("configure the consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run the consumer" ${WORK_DIR}/build/consumer ${WORK_DIR}/table.h5)
if(NOT output MATCHES "^ok: ")
  message(FATAL_ERROR "the consumer said: ${output}")
endif()
step("check the file" ${prefix}/bin/grundy verify ${WORK_DIR}/table.h5)

# pkg-config, the .pc file found by PKG_CONFIG_PATH only.
file(GLOB_RECURSE pc ${prefix}/*/grundy.pc)
if(NOT pc)
  message(FATAL_ERROR "the install has no grundy.pc")
endif()
get_filename_component(pc_dir ${pc} DIRECTORY)
set(ENV{PKG_CONFIG_PATH} ${pc_dir})
step("pkg-config" pkg-config --cflags --libs grundy)
string(STRIP "${output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
step("build with pkg-config" ${CXX} -std=c++20 -O1 ${CONSUMER_DIR}/main.cpp -o ${WORK_DIR}/consumer-pc
     ${flags})
step("run the pkg-config build" ${WORK_DIR}/consumer-pc)
if(NOT output MATCHES "^ok: ")
  message(FATAL_ERROR "the pkg-config build said: ${output}")
endif()
message(STATUS "installed package: CMake and pkg-config consumers ok")
