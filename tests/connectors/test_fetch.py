"""Fetching client metadata documents from real local servers: every limit and refusal.

``local=True`` is the test-only setting (http and loopback allowed); ``local=False`` is how
ume runs in production, where these same local servers must be refused before any request."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from connectors.fetch import fetch_document
from connectors.metadata import MAX_DOCUMENT_BYTES, MetadataRefused
from tests.connectors.document_host import DocumentHost


@pytest.fixture
def host() -> Iterator[DocumentHost]:
    with DocumentHost() as server:
        yield server


def refusal(url: str, *, local: bool = True, timeout: float = 5.0) -> str:
    with pytest.raises(MetadataRefused) as refused:
        fetch_document(url, local=local, timeout=timeout)
    return str(refused.value)


def test_a_document_is_fetched_with_its_cache_control(host: DocumentHost) -> None:
    client_id = host.document(headers={"Cache-Control": "public, max-age=600"})
    fetched = fetch_document(client_id, local=True, timeout=5)
    assert fetched.data["client_id"] == client_id
    assert fetched.data["redirect_uris"] == [host.callback_uri]
    assert fetched.cache_control == "public, max-age=600"
    assert host.hits["/client.json"] == 1


def test_a_json_suffix_type_is_json(host: DocumentHost) -> None:
    url = host.serve(
        "/c.json", b'{"a": 1}', headers={"Content-Type": "application/vnd.client+json"}
    )
    assert fetch_document(url, local=True, timeout=5).data == {"a": 1}


def test_an_oversized_document_is_refused_by_its_declared_length(host: DocumentHost) -> None:
    big = b'{"client_name": "' + b"x" * MAX_DOCUMENT_BYTES + b'"}'
    url = host.serve("/big.json", big, headers={"Content-Type": "application/json"})
    assert refusal(url) == "it is larger than 16 KiB"


def test_an_oversized_document_without_a_length_is_cut_off(host: DocumentHost) -> None:
    big = b'{"client_name": "' + b"x" * (4 * MAX_DOCUMENT_BYTES) + b'"}'
    url = host.serve("/big.json", big, headers={"Content-Type": "application/json"}, chunked=True)
    assert refusal(url) == "it is larger than 16 KiB"


def test_a_server_slow_to_answer_is_cut_off_at_the_deadline(host: DocumentHost) -> None:
    url = host.serve("/slow.json", {"a": 1}, delay=3.0)
    assert refusal(url, timeout=0.5) == "its host did not answer within 0.5 seconds"


def test_a_body_dripped_slowly_is_cut_off_at_the_deadline(host: DocumentHost) -> None:
    # Every byte arrives well within any read timeout; only the one deadline stops it.
    body = b'{"client_name": "' + b"x" * 200 + b'"}'
    url = host.serve("/drip.json", body, headers={"Content-Type": "application/json"}, drip=0.05)
    assert refusal(url, timeout=0.5) == "its host did not answer within 0.5 seconds"
    assert host.hits["/drip.json"] == 1


def test_a_redirect_loop_is_not_followed(host: DocumentHost) -> None:
    url = host.serve("/loop.json", status=302, headers={"Location": "/loop.json"})
    assert refusal(url).startswith(
        "it answered with a redirect (HTTP 302 to /loop.json); ume follows no redirects"
    )
    assert host.hits["/loop.json"] == 1


def test_a_redirect_to_a_good_document_is_not_followed_either(host: DocumentHost) -> None:
    host.document("/real.json")
    url = host.serve("/moved.json", status=301, headers={"Location": host.url("/real.json")})
    assert "ume follows no redirects" in refusal(url)
    assert host.hits["/real.json"] == 0


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"{not json", "application/json", "it is not valid JSON"),
        (b"\xff\xfe\x00garbage", "application/json", "it is not valid JSON"),
        (b"[" * 5000 + b"]" * 5000, "application/json", "it is not valid JSON"),  # too deep
        (b"<html>hi</html>", "text/html; charset=utf-8", "it was served as 'text/html', not "),
        (b'{"a": 1}', "", "it was served as 'no content type', not application/json"),
    ],
)
def test_bad_content_is_refused(
    host: DocumentHost, body: bytes, content_type: str, reason: str
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    url = host.serve("/bad.json", body, headers=headers)
    assert refusal(url).startswith(reason)


def test_an_error_status_is_refused(host: DocumentHost) -> None:
    assert refusal(host.url("/missing.json")) == "it answered HTTP 404, not 200"


def test_a_compressed_answer_is_refused(host: DocumentHost) -> None:
    url = host.serve(
        "/gz.json",
        b"\x1f\x8b\x08\x00",
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert refusal(url) == "it was sent with content encoding 'gzip'; ume asks for none"


def test_in_production_http_is_refused_before_any_request(host: DocumentHost) -> None:
    client_id = host.document()
    assert refusal(client_id, local=False) == "a client_id URL must use https"
    assert host.hits["/client.json"] == 0


def test_in_production_a_loopback_host_is_refused_before_any_request(host: DocumentHost) -> None:
    port = host.server.server_address[1]
    reason = refusal(f"https://localhost:{port}/client.json", local=False)
    assert reason.startswith("its host resolves to ") and "internal address" in reason
    assert sum(host.hits.values()) == 0


@pytest.mark.parametrize(
    "url",
    [
        "https://10.1.2.3/client.json",
        "https://192.168.0.7/client.json",
        "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:10.0.0.1]/client.json",
        "https://[fd00::1]/client.json",
        "https://0.0.0.0/client.json",
    ],
)
def test_private_addresses_are_refused_before_connecting(url: str) -> None:
    # Even the test-only setting allows nothing but loopback: these are never connected to.
    assert "an internal address ume never fetches from" in refusal(url, local=True, timeout=1)


def test_a_name_that_does_not_resolve_is_refused() -> None:
    reason = refusal("https://no-such-host.invalid/client.json", local=False, timeout=3)
    assert reason == "its host name 'no-such-host.invalid' could not be resolved"


def test_a_closed_port_is_refused() -> None:
    with DocumentHost() as gone:
        url = gone.url("/client.json")
    assert refusal(url).startswith("its host could not be reached (")


# --- https: the connection goes to the checked address, TLS checks the host name ----------


@pytest.fixture(scope="module")
def authority(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, Path]:
    """A test certificate authority and a server context for ``localhost`` signed by it."""
    folder = tmp_path_factory.mktemp("tls")
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ume test authority")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost")]),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "leaf.pem").write_bytes(
        leaf.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(folder / "leaf.pem")
    return server, folder / "ca.pem"


def test_https_checks_the_certificate_against_the_host_name(
    authority: tuple[ssl.SSLContext, Path],
) -> None:
    server, ca = authority
    with DocumentHost(tls=server, name="localhost") as host:
        client_id = host.document()
        trusted = ssl.create_default_context(cafile=str(ca))
        # The request goes to the resolved address (127.0.0.1, and ::1 first on some
        # machines, where nothing listens: the next address is tried); the certificate is
        # checked against "localhost", the name in the URL.
        fetched = fetch_document(client_id, local=True, timeout=5, verify=trusted)
        assert fetched.data["client_id"] == client_id
        # With the system's trust the same server is refused: TLS verification is on.
        with pytest.raises(MetadataRefused, match="certificate verify failed"):
            fetch_document(client_id, local=True, timeout=5)


def test_https_refuses_a_certificate_for_another_name(
    authority: tuple[ssl.SSLContext, Path],
) -> None:
    server, ca = authority
    with DocumentHost(tls=server, name="127.0.0.1") as host:
        client_id = host.document()
        trusted = ssl.create_default_context(cafile=str(ca))
        with pytest.raises(MetadataRefused, match="certificate verify failed"):
            fetch_document(client_id, local=True, timeout=5, verify=trusted)
