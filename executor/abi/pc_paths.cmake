# netns_pc_paths(LIBDIR INCLUDEDIR): the prefix, libdir and includedir lines
# of a relocatable netns_exec.pc installed to LIBDIR/pkgconfig, set as
# NETNS_PC_PREFIX, NETNS_PC_LIBDIR, NETNS_PC_INCLUDEDIR in the caller's scope.
# The prefix is found from where the file lies (${pcfiledir}), one "../" per
# component of LIBDIR/pkgconfig: lib/pkgconfig gives ../.., Debian's
# multiarch lib/x86_64-linux-gnu/pkgconfig gives ../../.. . An absolute
# LIBDIR cannot be relocated: the paths are then written as they are.
# Included by executor/abi/CMakeLists.txt and by test/abi/pc_paths_test.sh
# (cmake -P), so the rule exists once.
function(netns_pc_paths libdir includedir)
  if(IS_ABSOLUTE "${libdir}")
    set(prefix "${CMAKE_INSTALL_PREFIX}")
    set(lib "${libdir}")
  else()
    string(REPLACE "/" ";" parts "${libdir}/pkgconfig")
    list(REMOVE_ITEM parts "" ".")
    set(prefix "\${pcfiledir}")
    foreach(part IN LISTS parts)
      string(APPEND prefix "/..")
    endforeach()
    set(lib "\${prefix}/${libdir}")
  endif()
  if(IS_ABSOLUTE "${includedir}")
    set(inc "${includedir}")
  else()
    set(inc "\${prefix}/${includedir}")
  endif()
  set(NETNS_PC_PREFIX "${prefix}" PARENT_SCOPE)
  set(NETNS_PC_LIBDIR "${lib}" PARENT_SCOPE)
  set(NETNS_PC_INCLUDEDIR "${inc}" PARENT_SCOPE)
endfunction()
