# cmake -DSRC=REPO -DLIBDIR=DIR -DINCLUDEDIR=DIR -DOUT=FILE -P render_pc.cmake
# Renders netns_exec.pc the way executor/abi/CMakeLists.txt does, for a
# LIBDIR of the caller's choosing (pc_paths_test.sh).
set(PROJECT_VERSION 0.0.0)
set(CMAKE_INSTALL_PREFIX /usr)
include(${SRC}/executor/abi/pc_paths.cmake)
netns_pc_paths("${LIBDIR}" "${INCLUDEDIR}")
configure_file(${SRC}/executor/abi/netns_exec.pc.in ${OUT} @ONLY)
