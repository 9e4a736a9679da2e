# Writes OUTPUT (a header defining XPOSE_GIT_COMMIT) from the checkout at SOURCE_DIR: the short
# hash of HEAD, "+dirty" when tracked files differ from it, "unknown" outside a git checkout.
# Run at every build (tools/xpose/CMakeLists.txt); the header is rewritten only when it changes,
# so only the report's source recompiles after a commit.
set(commit unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE head RESULT_VARIABLE failed
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT failed AND head)
    set(commit ${head})
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD --
                    WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      set(commit "${head}+dirty")
    endif()
  endif()
endif()
file(WRITE ${OUTPUT}.new "#define XPOSE_GIT_COMMIT \"${commit}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.new ${OUTPUT})
file(REMOVE ${OUTPUT}.new)
