# tests/mpi/corpus.cmake — issue 8: the hostile-input corpus (tests/data/mkcorpus.py, 48 malformed
# or unsupported files) through transpose (every file), reduce/stats/info (every file at 1 rank,
# the files marked cheap at 2-4 ranks), one ctest test per rank count so they run side by side.
# Each must exit 2 with one line naming the file, leave no output, never crash, end within 30 s.
# About 20 s of CPU per rank count (a failing mpirun idles ~2 s, so cases run several at a time).
foreach(np 1 2 3 4)
  add_test(NAME mpi_corpus_np${np}
           COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_corpus.py
                   --gpipe $<TARGET_FILE:gpipe> --mpiexec ${MPIEXEC_EXECUTABLE} --np ${np}
                   --workdir ${GP_MPI_TEST_DIR} --bound 30)
  set_tests_properties(mpi_corpus_np${np} PROPERTIES LABELS "mpi;corpus" TIMEOUT 600
                       ENVIRONMENT "${GP_MPI_TEST_ENV}")
endforeach()
