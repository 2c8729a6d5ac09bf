# Compiler flags shared by every target of the project: warnings (as errors
# when BITONIC_WERROR is on) and the sanitizers when BITONIC_SANITIZE is on.
add_library(bitonic_build_flags INTERFACE)
target_compile_options(bitonic_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wshadow -Wno-unused-parameter>
  $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes -Wmissing-prototypes>)
if(BITONIC_WERROR)
  target_compile_options(bitonic_build_flags INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
endif()
if(BITONIC_SANITIZE)
  target_compile_options(bitonic_build_flags INTERFACE
    $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer>)
  target_link_options(bitonic_build_flags INTERFACE -fsanitize=address,undefined)
endif()
