/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MODEL_SIZE_OPTIONS_H
#define MODEL_SIZE_OPTIONS_H

#include "payload-format.h"

#include <cstdint>
#include <string>

namespace ns3
{

class CommandLine;

/**
 * @ingroup wan-training
 * @brief The options that give the model's size, shared by the programs that take one:
 * --modelBytes (S, the wire size in every format) or --modelParameters (P, e.g. 7e9) with
 * --format (fp32, bf16 or int8), which turns P into S (GetEncodedBytes; doc/schedule-model.rst,
 * "Formats on the command line"). Giving both sizes is an input error.
 */
class ModelSizeOptions
{
  public:
    /** What the options give: S on the wire, its format and, when given, P. */
    struct Size
    {
        double bytes{0};        //!< S, the wire size of one contribution
        PayloadFormat format{}; //!< --format (fp32 unless given)
        uint64_t parameters{0}; //!< --modelParameters P (0: S given in bytes)

        /**
         * @return whether the size is fp32 with S in bytes, which outputs leave unsaid (they
         *         read as before formats existed)
         */
        bool IsDefault() const;
        /**
         * @return "" when IsDefault(), else ", format NAME" and, when P was given,
         *         " (P parameters)", for the programs' summary lines
         */
        std::string Describe() const;
    };

    /**
     * @brief Add --modelBytes, --modelParameters and --format with their help texts.
     * @param cmd the command line; this object must outlive cmd.Parse()
     * @param modelBytesHelp the help text of --modelBytes
     */
    void AddValues(CommandLine& cmd, const std::string& modelBytesHelp);

    /**
     * @brief Parse the options into S.
     * @param program the name that error messages start with
     * @param wholeBytes whether S must be a whole number of bytes in [1, 2^50] (a simulation's
     *        size) rather than any positive number
     * @param defaultBytes --modelBytes when neither size is given (empty: --modelBytes is
     *        required, and its absence is reported as a bad --modelBytes)
     * @return S (GetEncodedBytes(format, P) when P is given), the format and P
     * @throws WanInputError for a bad value, or both sizes
     */
    Size Parse(const std::string& program, bool wholeBytes, const std::string& defaultBytes) const;

    std::string modelBytes;      //!< --modelBytes (empty: not given)
    std::string modelParameters; //!< --modelParameters (empty: not given)
    std::string format{"fp32"};  //!< --format
};

} // namespace ns3

#endif /* MODEL_SIZE_OPTIONS_H */
