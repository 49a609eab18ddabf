// HTTPGet lives in PassboxCurl, the one module over libcurl (the server mails invitations through it too);
// clients of this module keep reaching it here.
@_exported import PassboxCurl
