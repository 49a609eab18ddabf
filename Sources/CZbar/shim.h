// libzbar: QR code scanning of grayscale images.
#include <zbar.h>
