//===- OutputFile.h - Checked completion of a written file -----*- C++ -*-===//
//
// raw_fd_ostream reports a failed write (a full disk, /dev/full) with a
// fatal "IO failure on output stream" when it is destroyed unless the error
// was taken. Every report or output file Serenity writes ends with
// `closeOutputFile`, which turns that into an ordinary error message.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_OUTPUTFILE_H
#define SERENITY_SUPPORT_OUTPUTFILE_H

#include "llvm/Support/ToolOutputFile.h"

#include <optional>
#include <string>

namespace serenity {

/// Flushes `file`; keeps it and returns nothing when every write succeeded,
/// else returns the error (the partial file is deleted).
inline std::optional<std::string> closeOutputFile(llvm::ToolOutputFile &file) {
  file.os().flush();
  if (std::error_code ec = file.os().error()) {
    file.os().clear_error();
    return ec.message();
  }
  file.keep();
  return std::nullopt;
}

} // namespace serenity

#endif // SERENITY_SUPPORT_OUTPUTFILE_H
