"""Virtual media that records the image URL instead of downloading it.

sushy-tools' virtual media inserts an image by downloading it, so a test
would have to serve a real ISO.  A BMC reads the image lazily, as the host
boots from it; what the redfish hardware type needs to see is that the
insert is accepted and ``Image`` reads back.  This subclass of the stock
driver keeps all of its behaviour (devices Cd and Floppy, eject, inserted,
write-protected, credentials, certificates) and only replaces the download:
an ``http``/``https`` URL is accepted as it is; anything else is refused
with a 400 naming it.
"""

import posixpath
from urllib import parse

from sushy_tools.emulator.resources import vmedia as stock_vmedia

from tests.redfish_emulator import errors


class LinkedImages(stock_vmedia.StaticDriver):

    def _get_image(self, image_url, auth, verify_media_cert, custom_cert):
        url = parse.urlparse(image_url or '')
        if url.scheme not in ('http', 'https') or not url.netloc:
            raise errors.RedfishError(
                'Image must be an http(s) URL, not %r.' % (image_url,),
                message_id='ActionParameterValueFormatError',
                args=[image_url, 'Image', 'VirtualMedia.InsertMedia'],
                related=['#/Image'])
        # (file name shown as ImageName, local copy: none)
        return posixpath.basename(url.path) or 'image.iso', ''
