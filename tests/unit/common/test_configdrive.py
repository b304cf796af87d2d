"""Config drives: checked as Ironic's provision API accepts them, built
into the image cloud-init reads, and never quoted when refused."""

import base64
import gzip
import io
import json
import traceback

import ddt
import pycdlib
import testtools

from ironic_steps.common import configdrive
from ironic_steps.common import exception
from ironic_steps import conf

NODE_UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'
MAX = 64 * 1024 * 1024
# Planted in refused values: it must appear in no message or traceback.
# It is also a valid URL scheme and base64 alphabet, to be tempting.
SECRET = 'hunter2sekrit'


def gzipped(data):
    # mtime=0: ddt names tests after their data, and stestr lists tests in
    # one process and runs them in others: a name must not change between.
    return gzip.compress(data, mtime=0)


def gzipped_image(data):
    return base64.b64encode(gzipped(data)).decode('ascii')


def read_image(drive):
    """The label and files of a built drive: {path: bytes} read by Rock
    Ridge names, and the same read by Joliet names."""
    iso = pycdlib.PyCdlib()
    iso.open_fp(io.BytesIO(gzip.decompress(base64.b64decode(drive))))
    try:
        label = iso.pvd.volume_identifier.decode('ascii').rstrip()
        by_name = {}
        for key in ('rr_path', 'joliet_path'):
            files = by_name.setdefault(key, {})
            for root, _dirs, names in iso.walk(**{key: '/'}):
                for name in names:
                    path = '%s/%s' % (root.rstrip('/'), name)
                    out = io.BytesIO()
                    iso.get_file_from_iso_fp(out, **{key: path})
                    files[path] = out.getvalue()
    finally:
        iso.close()
    return label, by_name['rr_path'], by_name['joliet_path']


def latest(files):
    prefix = '/openstack/latest/'
    return {path[len(prefix):]: data for path, data in files.items()
            if path.startswith(prefix)}


@ddt.ddt
class BuildTest(testtools.TestCase):

    def test_an_object_becomes_a_config_2_image_of_its_files(self):
        drive = configdrive.build(
            {'meta_data': {'uuid': NODE_UUID, 'public_keys': {'k': 'ssh'}},
             'user_data': '#cloud-config\n',
             'network_data': {'links': []},
             'vendor_data': {'vendor': 'data'}},
            NODE_UUID)

        label, rock_ridge, joliet = read_image(drive)
        self.assertEqual('config-2', label)
        self.assertEqual({
            'meta_data.json': {'uuid': NODE_UUID,
                               'public_keys': {'k': 'ssh'}},
            'user_data': '#cloud-config\n',
            'network_data.json': {'links': []},
            'vendor_data2.json': {'vendor': 'data'},
        }, {name: (data.decode() if name == 'user_data'
                   else json.loads(data))
            for name, data in latest(rock_ridge).items()})

    def test_both_metadata_versions_hold_the_same_files_in_both_names(self):
        drive = configdrive.build({'user_data': 'hi'}, NODE_UUID)

        _, rock_ridge, joliet = read_image(drive)
        self.assertEqual(rock_ridge, joliet)
        self.assertEqual(
            ['/openstack/%s/%s' % (version, name)
             for version in ('2012-08-10', 'latest')
             for name in ('meta_data.json', 'user_data')],
            sorted(rock_ridge))
        self.assertEqual(rock_ridge['/openstack/latest/user_data'],
                         rock_ridge['/openstack/2012-08-10/user_data'])

    def test_meta_data_gets_the_node_uuid_and_name_it_does_not_set(self):
        drive = configdrive.build({'meta_data': {'hostname': 'h'}},
                                  NODE_UUID, 'node-1')

        meta_data = latest(read_image(drive)[1])['meta_data.json']
        self.assertEqual({'hostname': 'h', 'uuid': NODE_UUID,
                          'name': 'node-1'}, json.loads(meta_data))

    def test_meta_data_keeps_the_uuid_and_name_it_sets(self):
        drive = configdrive.build(
            {'meta_data': {'uuid': 'mine', 'name': 'also-mine'}},
            NODE_UUID, 'node-1')

        meta_data = latest(read_image(drive)[1])['meta_data.json']
        self.assertEqual({'uuid': 'mine', 'name': 'also-mine'},
                         json.loads(meta_data))

    def test_a_node_without_a_name_gives_meta_data_no_name(self):
        drive = configdrive.build({}, NODE_UUID)

        self.assertEqual({'meta_data.json': b'{"uuid": "%s"}' % (
            NODE_UUID.encode())}, latest(read_image(drive)[1]))

    @ddt.data({'a': [1, 2]}, [{'a': 1}, 'b'])
    def test_user_data_given_as_an_object_or_array_is_written_as_json(
            self, user_data):
        drive = configdrive.build({'user_data': user_data}, NODE_UUID)

        written = latest(read_image(drive)[1])['user_data']
        self.assertEqual(user_data, json.loads(written))

    def test_user_data_text_is_written_as_utf_8(self):
        drive = configdrive.build({'user_data': 'clé ☃'}, NODE_UUID)

        self.assertEqual('clé ☃'.encode('utf-8'),
                         latest(read_image(drive)[1])['user_data'])

    @ddt.data({'user_data': None}, {'user_data': ''},
              {'network_data': {}}, {'vendor_data': {}})
    def test_a_part_that_is_empty_or_null_writes_no_file(self, drive):
        built = configdrive.build(drive, NODE_UUID)

        self.assertEqual(['meta_data.json'],
                         list(latest(read_image(built)[1])))

    def test_the_object_given_is_left_unchanged(self):
        drive = {'meta_data': {'hostname': 'h'}, 'user_data': {'a': 1}}

        configdrive.build(drive, NODE_UUID, 'node-1')

        self.assertEqual({'meta_data': {'hostname': 'h'},
                          'user_data': {'a': 1}}, drive)

    @ddt.data(gzipped_image(b'an image'), 'https://example.com/cd.iso.gz')
    def test_a_string_is_handed_over_unchanged(self, drive):
        self.assertIs(drive, configdrive.build(drive, NODE_UUID))

    def test_a_built_drive_passes_the_check_as_an_image(self):
        drive = configdrive.build({'user_data': 'x' * 5000}, NODE_UUID)

        configdrive.check(drive, MAX)

    @ddt.data(None, 42, ['user_data'], {'user-data': 'x'},
              {'meta_data': 'x'})
    def test_build_refuses_what_is_not_a_config_drive(self, drive):
        self.assertRaises(exception.InvalidParameterValue,
                          configdrive.build, drive, NODE_UUID)

    @ddt.data(0, 1, 2047, 2048, 2049, 300000)
    def test_an_image_is_never_larger_than_check_counts(self, size):
        # check() counts a dict's image without building it, from a
        # measured overhead (configdrive._IMAGE_OVERHEAD): if pycdlib
        # changes its layout, this says the count must be measured again.
        drive = {'meta_data': {'k': 'm' * size}, 'user_data': 'u' * size,
                 'network_data': {'k': 'n' * size},
                 'vendor_data': {'k': 'v' * size}}
        built = configdrive.build(drive, NODE_UUID, 'n' * 255)

        image = len(gzip.decompress(base64.b64decode(built)))
        files = latest(read_image(built)[1])
        self.assertEqual(configdrive.image_size(map(len, files.values())),
                         image)
        # check() counts the room kept for the defaults (here with the
        # longest node name): never less than the image, at most a sector
        # more.
        self.assertRaises(exception.InvalidParameterValue,
                          configdrive.check, drive, image - 1)
        configdrive.check(drive, image + 2048)


@ddt.ddt
class CheckTest(testtools.TestCase):

    def assertRefused(self, value, fragment, max_bytes=MAX):
        exc = self.assertRaises(exception.InvalidParameterValue,
                                configdrive.check, value, max_bytes)
        self.assertIn(fragment, str(exc))
        self.assertRegex(str(exc), r'\AThe .*\.\Z')
        # Neither the message nor anything chained to it quotes the value.
        self.assertNotIn(SECRET, ''.join(traceback.format_exception(exc)))
        return exc

    @ddt.data({}, {'meta_data': {'a': 1}}, {'user_data': 'text'},
              {'user_data': {'a': 1}}, {'user_data': [1]},
              {'user_data': None}, {'network_data': {'links': []}},
              {'vendor_data': {'v': 1}},
              {'meta_data': {}, 'user_data': '', 'network_data': {},
               'vendor_data': {}})
    def test_an_object_of_the_four_parts_is_accepted(self, drive):
        configdrive.check(drive, MAX)

    @ddt.data(gzipped_image(b'an image'),
              base64.encodebytes(gzipped(b'wrapped')).decode(),
              base64.b64encode(gzipped(b'two') + gzipped(
                  b' members')).decode())
    def test_a_base64_gzipped_image_is_accepted(self, drive):
        configdrive.check(drive, MAX)

    @ddt.data('http://example.com/cd', 'https://10.0.0.1:8080/cd.iso.gz',
              'HTTPS://[fd00::1]/cd?token=x',
              'https://user:pass@example.com/cd')
    def test_an_http_or_https_url_is_accepted(self, url):
        configdrive.check(url, MAX)
        self.assertTrue(configdrive.is_url(url))

    @ddt.data(
        ({'meta_data': {'k': SECRET}, 'extra': SECRET, 'x' * 40: 2},
         "unknown keys 'extra', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'; it "
         'may have meta_data, user_data, network_data, vendor_data'),
        ({'meta_data': SECRET}, "meta_data is a string; it must be an object"),
        ({'meta_data': [SECRET]}, 'meta_data is an array'),
        ({'meta_data': None}, 'meta_data is null'),
        ({'network_data': SECRET}, 'network_data is a string'),
        ({'vendor_data': [SECRET]}, 'vendor_data is an array'),
        ({'meta_data': {'k': SECRET}, 'user_data': 42},
         'user_data is a number; it must be a string, an object or an '
         'array'),
        ({'meta_data': {'k': SECRET}, 'user_data': True},
         'user_data is a boolean'),
        ({'user_data': SECRET + '\ud800'}, 'user_data is not valid UTF-8'),
        ({'meta_data': {SECRET: {SECRET}}},
         'meta_data holds a value JSON cannot represent'),
        ({'user_data': [SECRET, b'bytes']},
         'user_data holds a value JSON cannot represent'),
    )
    @ddt.unpack
    def test_a_malformed_object_is_refused_by_key_and_type(
            self, drive, fragment):
        self.assertRefused(drive, fragment)

    @ddt.data((None, 'configdrive is null; a configdrive is an '
                     'object with keys meta_data, user_data, network_data, '
                     'vendor_data, a base64-encoded gzipped ISO 9660 image '
                     'or an http:// or https:// URL'),
              ([SECRET], 'configdrive is an array'),
              (42, 'configdrive is a number'),
              (SECRET.encode(), 'configdrive is a bytes'),
              ('', 'configdrive is an empty string'))
    @ddt.unpack
    def test_what_is_neither_object_nor_string_is_refused_by_type(
            self, value, fragment):
        self.assertRefused(value, fragment)

    @ddt.data(
        (SECRET + '!', 'neither an http:// or https:// URL nor base64'),
        (SECRET + '=', 'neither an http:// or https:// URL nor base64'),
        ('www.example.com/' + SECRET, 'nor base64'),
        (base64.b64encode(SECRET.encode() * 3).decode(),
         'base64 but not complete gzip data'),
        (gzipped_image(SECRET.encode() * 100)[:-12],
         'base64 but not complete gzip data'),
        (base64.b64encode(gzipped(SECRET.encode()) + SECRET.encode()
                          ).decode(), 'not complete gzip data'),
        (gzipped_image(b''), 'configdrive image is empty'),
    )
    @ddt.unpack
    def test_a_string_that_is_no_gzipped_base64_image_is_refused(
            self, value, fragment):
        self.assertRefused(value, fragment)

    @ddt.data(
        ('file:///root/' + SECRET, "URL has the 'file' scheme; the agent "
                                   'downloads only http:// and https:// '
                                   'URLs'),
        ('ftp://user:%s@example.com/cd' % SECRET, "the 'ftp' scheme"),
        ('%s://example.com/cd' % SECRET, 'has an unsupported scheme'),
        ('root:' + SECRET, 'has an unsupported scheme'),
        ('http:///' + SECRET, 'configdrive URL has no host'),
        ('https://user:%s@/cd' % SECRET, 'has no host'),
        ('http://[::1/' + SECRET, 'configdrive URL cannot be parsed'),
    )
    @ddt.unpack
    def test_a_url_the_agent_does_not_download_is_refused(
            self, url, fragment):
        self.assertRefused(url, fragment)
        self.assertFalse(configdrive.is_url(url))

    def test_an_image_is_accepted_up_to_the_limit_decompressed(self):
        drive = gzipped_image(SECRET.encode() * 1000)

        configdrive.check(drive, len(SECRET) * 1000)
        self.assertRefused(
            drive, 'configdrive image decompresses to more than the '
                   '12999 allowed by [deploy] configdrive_max_bytes',
            max_bytes=len(SECRET) * 1000 - 1)

    def test_a_highly_compressed_image_is_refused_by_its_real_size(self):
        drive = gzipped_image(bytes(8 * 1024 * 1024))

        self.assertLess(len(drive), 20000)
        self.assertRefused(drive, 'decompresses to more than',
                           max_bytes=1024 * 1024)

    def test_an_object_is_refused_when_its_image_would_be_too_large(self):
        drive = {'user_data': SECRET * 10000}
        size = configdrive.image_size(
            [len('{}') + configdrive._DEFAULTS_RESERVE, len(SECRET) * 10000])

        configdrive.check(drive, size)
        self.assertRefused(
            drive, 'The image built from the configdrive object would be '
                   'up to %d bytes, more than the %d allowed by [deploy] '
                   'configdrive_max_bytes' % (size, size - 1),
            max_bytes=size - 1)

    def test_the_limit_is_an_option_of_64_mib_by_default(self):
        self.assertEqual(MAX, conf.CONF.deploy.configdrive_max_bytes)


@ddt.ddt
class IsUrlTest(testtools.TestCase):

    @ddt.data(
        ('http://h/cd', True), ('https://h', True), ('HTTP://H/x', True),
        ('ftp://h/cd', False), ('http://', False), ('http:/h', False),
        ('h/cd', False), (gzipped_image(b'x'), False), ('', False),
        (None, False), ({'user_data': 'http://h'}, False),
        (b'http://h', False),
    )
    @ddt.unpack
    def test_only_an_http_or_https_url_with_a_host_is_a_url(
            self, value, expected):
        self.assertIs(expected, configdrive.is_url(value))
