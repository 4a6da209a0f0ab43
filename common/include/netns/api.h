/* NETNS_EXEC_API marks a declaration as part of what libnetns_exec.so
 * exports. Everything linked into the library is compiled with
 * -fvisibility=hidden (executor/abi/CMakeLists.txt), so a function or class
 * is exported exactly when its declaration in an installed header carries
 * this mark; the version script only names the version. Only installed
 * headers use it (test/style: version-script). C and C++. */
#ifndef NETNS_API_H
#define NETNS_API_H

#define NETNS_EXEC_API __attribute__((visibility("default")))

#endif
