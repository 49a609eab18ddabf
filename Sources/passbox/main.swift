import PassboxCLI
#if canImport(Glibc)
    import Glibc
#endif

exit(CommandLineTool.main(CommandLine.arguments))
