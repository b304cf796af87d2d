"""A self-signed TLS certificate for 127.0.0.1, made for a test.

``cert, key = self_signed.certificate(directory)`` writes both (PEM) and
returns their paths; a client verifies the server with ``cert`` as its CA.
Made with the ``cryptography`` package when it is installed, else with the
``openssl`` command; a test without either is skipped.
"""

import datetime
import ipaddress
import os
import shutil
import subprocess

import testtools

HOST = '127.0.0.1'


def _with_cryptography(cert_path, key_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(HOST))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None),
                           critical=True)
            .sign(key, hashes.SHA256()))
    with open(cert_path, 'wb') as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, 'wb') as out:
        out.write(key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))


def _with_openssl(cert_path, key_path):
    subprocess.run(
        ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
         'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
         '-subj', '/CN=%s' % HOST, '-addext', 'subjectAltName=IP:%s' % HOST,
         '-keyout', key_path, '-out', cert_path],
        check=True, capture_output=True, timeout=60)


def certificate(directory):
    """(certificate path, key path) of a new self-signed certificate for
    :data:`HOST`, in ``directory``."""
    cert_path = os.path.join(directory, 'api-cert.pem')
    key_path = os.path.join(directory, 'api-key.pem')
    try:
        import cryptography  # noqa: F401
    except ImportError:
        if shutil.which('openssl') is None:
            raise testtools.TestCase.skipException(
                'neither the cryptography package nor openssl is installed')
        _with_openssl(cert_path, key_path)
    else:
        _with_cryptography(cert_path, key_path)
    return cert_path, key_path
