# The CMake side of the Debian toolchain's work-arounds (Emscripten 3.1.6; scripts/toolchain.mjs holds the
# environment side: PATH, wrappers, metadata, glue). CMakeLists.txt includes this file in the Emscripten build,
# after the engine's options; it appends to AP_VARIANT_LINK_FLAGS. Each entry says what it works around and
# how to drop it on a current emsdk.

# Optimisation levels: the engine around the hot loops (src/core, src/bindings) at -Os, the kernels
# (src/kernels) at the build type's -O3. Not a toolchain bug but the size budget (scripts/bench-doc.mjs
# WASM_GZIP_BUDGET): measured 2026-12-01, everything at -O3 is +53.7 KB gzipped (+31 %) and runs ap.run() up to
# 4x faster (docs/design.md, performance notes); the link stays at -O3, because emcc's wasm-opt at -Os slowed
# the SIMD kernels tenfold. Two levels in one binary are safe only if no template is
# instantiated at both: a linker keeps one copy of each (the first it meets), so Eigen's GEMM at -Os or at
# -O3 depended on link order when train.cpp was built apart. Hence the guard: Eigen is -Os only, because
# every source that includes it is, and a kernel source that includes it (src/core/common.h) fails to
# compile (AP_KERNEL_SOURCE). Keep on a current emsdk while the budget holds; with one level everywhere,
# drop the guard and the per-file options.
option(AP_SIZE_OPT "Build the non-kernel code with -Os" ON)
if(AP_SIZE_OPT)
  file(GLOB AP_SIZE_SOURCES CONFIGURE_DEPENDS src/core/*.cpp src/bindings/*.cpp)
  # Per source, after the build type's -O3 (clang takes the last -O).
  set_source_files_properties(${AP_SIZE_SOURCES} PROPERTIES COMPILE_OPTIONS "-Os")
  file(GLOB AP_KERNEL_SOURCES CONFIGURE_DEPENDS src/kernels/*.cpp)
  set_source_files_properties(${AP_KERNEL_SOURCES} PROPERTIES COMPILE_DEFINITIONS AP_KERNEL_SOURCE)
endif()

if(AP_RELAXED_SIMD)
  # Debian's binaryen 108 (wasm-emscripten-finalize) cannot parse the relaxed opcodes. With BigInt at the JS
  # boundary finalize has nothing to rewrite, so emcc skips it when it reads the metadata itself
  # (EMCC_READ_METADATA=python, scripts/toolchain.mjs). Drop on a current emsdk (its binaryen parses them).
  list(APPEND AP_VARIANT_LINK_FLAGS -sWASM_BIGINT=1)
endif()

if(AP_THREADS)
  # Emscripten 3.1.6's worker.js calls these two on every pthread, but nothing keeps them exported once the
  # metadata is read without wasm-emscripten-finalize (above). Drop with the relaxed-SIMD entry above.
  list(APPEND AP_VARIANT_LINK_FLAGS
    "-sEXPORTED_FUNCTIONS=[___embind_register_native_and_builtin_types,_emscripten_proxy_execute_queue]")
endif()
