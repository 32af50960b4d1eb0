#!/usr/bin/env python3
"""An SMTP server for the tests: accepts mail on 127.0.0.1 and keeps each message as files,
and can be told to misbehave, so that the tests can check what Latchkey sends and how it
copes with a mail server that fails or lies. Built on aiosmtpd; run it with the python that
`scripts/smtp-sink.sh setup` prints.

    smtp-sink.py [--port N] [--maildir DIR] [--user U --password P]
                 [--tls | --implicit-tls]
                 [--fail-data N] [--reject-rcpt] [--garbage-greeting] [--drop-after-ehlo]

  --port N            port on 127.0.0.1 (default 0: a free one)
  --maildir DIR       keep each accepted message as DIR/NNNNNN.eml (the bytes after DATA,
                      dot-unstuffed, up to and without the final ".") and DIR/NNNNNN.json
                      ({"mail_from", "rcpt_tos", "auth_user", "tls"}); the .json is in place
                      before the .eml appears. Numbers go on from those already in DIR.
  --user U --password P
                      require AUTH (PLAIN or LOGIN) with these before MAIL; others get 535.
                      Without them AUTH is still offered and any credentials pass (the
                      user is recorded), so a client configured with credentials can send.
  --tls               offer STARTTLS with a self-signed certificate for 127.0.0.1 and
                      localhost made at startup, and require it before AUTH and MAIL
  --implicit-tls      speak TLS from the first byte (SMTPS) instead
  --fail-data N       answer "451 4.3.0 try again later" at the end of the first N messages
                      (the reply after the body's final "."), then accept
  --reject-rcpt       answer "550 5.1.1 no such user" to every RCPT
  --garbage-greeting  send "hello there" instead of a 220 greeting, then close
  --drop-after-ehlo   close the connection right after answering EHLO

Prints one line, "READY <port>", on stdout once listening, and nothing else there; logs
each session's commands and replies (never message bodies, nor credentials) on stderr.
Stops on SIGTERM or SIGINT.
"""

import argparse
import asyncio
import json
import logging
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import warnings

from aiosmtpd.smtp import SMTP, AuthResult

HOST = "127.0.0.1"
log = logging.getLogger("smtp-sink")


# ---- TLS ---------------------------------------------------------------------------------

def make_certificate(directory):
    """Writes a fresh self-signed certificate and key for 127.0.0.1 and localhost into
    directory and returns their paths. The openssl CLI is preferred because it is on every
    machine that has Python's ssl module's library; the `cryptography` package is the
    fallback where the CLI is missing (the venv only has it if someone installed it)."""
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    if shutil.which("openssl"):
        subprocess.run(
            ["openssl", "req", "-x509", "-nodes", "-days", "2",
             "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-keyout", key, "-out", cert, "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        return cert, key
    try:
        import datetime
        import ipaddress
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        sys.exit("smtp-sink: --tls needs the openssl command or the cryptography package")
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([
            x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False)
        .sign(private, hashes.SHA256()))
    with open(cert, "wb") as f:
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(key, "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    return cert, key


def server_tls_context(cert_out=None):
    # The context reads the files when loading them, so the directory need not outlive it.
    # The certificate is copied to cert_out for clients that should trust it.
    with tempfile.TemporaryDirectory(prefix="smtp-sink-") as directory:
        cert, key = make_certificate(directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        if cert_out:
            shutil.copyfile(cert, cert_out)
    return context


# ---- Mail storage --------------------------------------------------------------------------

class Maildir:
    def __init__(self, path):
        self.path = path
        os.makedirs(path, exist_ok=True)
        # Going on from what is there keeps a rerun with the same directory from
        # overwriting the messages a test is still looking at.
        numbers = [int(m.group(1)) for m in
                   (re.fullmatch(r"(\d{6})\.eml", n) for n in os.listdir(path)) if m]
        self.last = max(numbers, default=0)

    def _write(self, name, data):
        # A dot-file in the same directory: invisible to a reader globbing *.eml or
        # *.json, and on the same filesystem, so os.replace is an atomic rename.
        temporary = os.path.join(self.path, "." + name + ".tmp")
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, os.path.join(self.path, name))

    def store(self, content, metadata):
        self.last += 1
        stem = f"{self.last:06d}"
        # The .json first: a reader that waits for the .eml then finds both.
        self._write(stem + ".json", json.dumps(metadata, indent=2).encode() + b"\n")
        self._write(stem + ".eml", content)
        return stem


# ---- SMTP ---------------------------------------------------------------------------------

class Handler:
    """aiosmtpd calls its handle_* methods as hooks, and treats any auth_* attribute as an
    AUTH mechanism: no attribute here may start with either prefix by accident."""

    def __init__(self, maildir, failures_left, reject_rcpt):
        self.maildir = maildir
        self.failures_left = failures_left
        self.reject_rcpt = reject_rcpt

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.reject_rcpt:
            return "550 5.1.1 no such user"
        # Returning a status replaces aiosmtpd's own bookkeeping, so it is done here.
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        # Counted over the whole run, not per connection: a client that retries on a new
        # connection must still meet the remaining failures.
        if self.failures_left > 0:
            self.failures_left -= 1
            log.info("%r failing DATA on purpose (%d more to fail)",
                     session.peer, self.failures_left)
            return "451 4.3.0 try again later"
        login = getattr(session.auth_data, "login", None) if session.authenticated else None
        metadata = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth_user": login.decode("utf-8", "replace") if login is not None else None,
            # Either way of encrypting leaves an SSL transport under the session.
            "tls": server.transport.get_extra_info("ssl_object") is not None,
        }
        size = len(envelope.original_content)
        if self.maildir is None:
            log.info("%r accepted %d bytes (not kept): %s", session.peer, size, metadata)
            return "250 2.0.0 OK"
        stem = self.maildir.store(envelope.original_content, metadata)
        log.info("%r stored %s.eml, %d bytes: %s", session.peer, stem, size, metadata)
        return f"250 2.0.0 OK queued as {stem}"


class SinkSMTP(SMTP):
    # aiosmtpd's own AUTH LOGIN prompts are "User Name\0" and "Password\0"; these are what
    # common servers (Postfix, Exim) send, so a client that reads the prompt meets the usual.
    AuthLoginUsernameChallenge = "Username:"
    AuthLoginPasswordChallenge = "Password:"

    def __init__(self, *args, drop_after_ehlo=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.drop_after_ehlo = drop_after_ehlo

    async def smtp_EHLO(self, hostname):
        await super().smtp_EHLO(hostname)
        if self.drop_after_ehlo and hostname and self.transport is not None:
            log.info("%r dropping the connection after EHLO on purpose", self.session.peer)
            self.transport.close()


class GarbageGreeting(asyncio.Protocol):
    def connection_made(self, transport):
        log.info("%r sending a garbage greeting on purpose", transport.get_extra_info("peername"))
        transport.write(b"hello there\r\n")
        transport.close()


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = user is None or (auth_data.login == user and auth_data.password == password)
        log.info("%r AUTH %s as %r: %s", session.peer, mechanism,
                 auth_data.login.decode("utf-8", "replace"), "accepted" if ok else "refused")
        # handled=False lets aiosmtpd answer "535 5.7.8 Authentication credentials invalid".
        return AuthResult(success=True, auth_data=auth_data) if ok else \
            AuthResult(success=False, handled=False)
    return check


# ---- Logging ------------------------------------------------------------------------------

def quiet_aiosmtpd(record):
    """aiosmtpd logs commands at INFO (with AUTH arguments masked) and replies at DEBUG, but
    DEBUG also carries the message body line by line: only the replies pass from DEBUG.
    Also dropped: warnings it repeats on every connection about choices made here on
    purpose (AUTH without TLS when --tls is off) or about its own internals."""
    message = str(record.msg)
    if record.levelno < logging.INFO:
        return message == "%r << %r"
    return not (message.startswith("Session.login_data is deprecated")
                or message.startswith("auth_required == True but auth_require_tls == False"))


def setup_logging():
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="smtp-sink %(asctime)s %(message)s")
    aiosmtpd_log = logging.getLogger("mail.log")
    aiosmtpd_log.setLevel(logging.DEBUG)
    aiosmtpd_log.addFilter(quiet_aiosmtpd)
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")


# ---- Main ---------------------------------------------------------------------------------

def parse_arguments():
    parser = argparse.ArgumentParser(
        description="An SMTP server on 127.0.0.1 for the tests; prints 'READY <port>'.")
    parser.add_argument("--port", type=int, default=0, help="default 0: a free port")
    parser.add_argument("--maildir", help="keep each message as NNNNNN.eml and NNNNNN.json")
    parser.add_argument("--user", help="require AUTH with this user (with --password)")
    parser.add_argument("--password")
    encryption = parser.add_mutually_exclusive_group()
    encryption.add_argument("--tls", action="store_true",
                            help="offer and require STARTTLS (self-signed certificate)")
    encryption.add_argument("--implicit-tls", action="store_true",
                            help="TLS from the first byte (SMTPS)")
    parser.add_argument("--cert-out", metavar="PATH",
                        help="with --tls or --implicit-tls, write the certificate (PEM) here")
    parser.add_argument("--fail-data", type=int, default=0, metavar="N",
                        help="answer 451 at the end of the first N messages")
    parser.add_argument("--reject-rcpt", action="store_true", help="answer 550 to every RCPT")
    parser.add_argument("--garbage-greeting", action="store_true",
                        help="greet with a line that is not SMTP, then close")
    parser.add_argument("--drop-after-ehlo", action="store_true",
                        help="close the connection right after answering EHLO")
    arguments = parser.parse_args()
    if (arguments.user is None) != (arguments.password is None):
        parser.error("--user and --password go together")
    return arguments


async def serve(arguments):
    loop = asyncio.get_running_loop()
    context = server_tls_context(arguments.cert_out) if arguments.tls or arguments.implicit_tls else None
    maildir = Maildir(arguments.maildir) if arguments.maildir else None
    handler = Handler(maildir, arguments.fail_data, arguments.reject_rcpt)
    user = arguments.user.encode() if arguments.user is not None else None
    password = arguments.password.encode() if arguments.password is not None else None

    def new_session():
        if arguments.garbage_greeting:
            return GarbageGreeting()
        return SinkSMTP(
            handler,
            loop=loop,
            # A fixed name: the default, socket.getfqdn(), can stall on DNS per connection.
            hostname="localhost",
            # STARTTLS only when asked for; with --implicit-tls the socket is already TLS.
            tls_context=context if arguments.tls else None,
            require_starttls=arguments.tls,
            # aiosmtpd counts only STARTTLS as encryption: under implicit TLS it would
            # refuse AUTH, and without any TLS the tests still want AUTH in the clear.
            auth_require_tls=arguments.tls,
            auth_required=user is not None,
            authenticator=authenticator(user, password),
            drop_after_ehlo=arguments.drop_after_ehlo,
        )

    server = await loop.create_server(
        new_session, HOST, arguments.port,
        ssl=context if arguments.implicit_tls else None)
    port = server.sockets[0].getsockname()[1]

    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(f"READY {port}", flush=True)
    log.info("listening on %s:%d", HOST, port)
    await stop.wait()
    log.info("stopping")
    # Not waiting for wait_closed(): since Python 3.12 it waits for every client to hang up.
    # asyncio.run cancels the sessions still open.
    server.close()


def main():
    # A parent may start us with SIGTERM and SIGINT blocked (Foundation's Process does):
    # unblock them, or stopping the sink would have to wait for SIGKILL.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    arguments = parse_arguments()
    setup_logging()
    try:
        asyncio.run(serve(arguments))
    except OSError as error:
        sys.exit(f"smtp-sink: {error}")
    except subprocess.CalledProcessError as error:
        sys.exit(f"smtp-sink: openssl failed: {error.stderr.decode(errors='replace')}")


if __name__ == "__main__":
    main()
