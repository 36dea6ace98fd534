// Anchor for the shared precompiled torch header (see dependencies.cmake).
