// Opens a cache folder with OkHttp's own Cache (Debian's libokhttp-java) and says what the app
// would get, for OkHttpCacheTests. Usage (URLs one per line on standard input, hex of UTF-8):
//   java CacheProbe read <folder>   each URL asked with FORCE_CACHE, then plainly, with no network:
//                                   "<force status> <md5 of body> <plain status or 'offline'> <md5>"
//   java CacheProbe fetch <folder>  each URL fetched over the network through the cache, stored
//                                   as the app stores it: "<status> <md5 of body>"
//   java CacheProbe url             each URL through HttpUrl.parse: its toString(), or "null"
//   java CacheProbe journal <folder> <appVersion> <valueCount> <index>
//                                   opens a DiskLruCache folder (Glide's and Coil's journal format)
//                                   with OkHttp's DiskLruCache and prints each entry it serves:
//                                   "<key> <md5 of value <index>>"
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.File;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Iterator;
import javax.net.SocketFactory;
import okhttp3.Cache;
import okhttp3.CacheControl;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.cache.DiskLruCache;
import okhttp3.internal.io.FileSystem;
import okio.Okio;

public class CacheProbe {
  /** No network: every connection attempt fails, as on a device in airplane mode. */
  static final class Offline extends SocketFactory {
    @Override public Socket createSocket() throws IOException { throw new IOException("offline"); }
    @Override public Socket createSocket(String h, int p) throws IOException { throw new IOException("offline"); }
    @Override public Socket createSocket(String h, int p, InetAddress a, int q) throws IOException {
      throw new IOException("offline");
    }
    @Override public Socket createSocket(InetAddress h, int p) throws IOException { throw new IOException("offline"); }
    @Override public Socket createSocket(InetAddress h, int p, InetAddress a, int q) throws IOException {
      throw new IOException("offline");
    }
  }

  static String hex(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    for (byte b : bytes) text.append(String.format("%02x", b & 0xff));
    return text.toString();
  }

  static String fromHex(String line) {
    byte[] bytes = new byte[line.length() / 2];
    for (int i = 0; i < bytes.length; i++) bytes[i] = (byte) Integer.parseInt(line.substring(2 * i, 2 * i + 2), 16);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static String call(OkHttpClient client, Request request) throws Exception {
    try (Response response = client.newCall(request).execute()) {
      byte[] body = response.body().bytes();
      return response.code() + " " + hex(MessageDigest.getInstance("MD5").digest(body));
    } catch (IOException e) {
      return "offline -";
    }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (args[0].equals("url")) {
      for (String line; (line = input.readLine()) != null; ) {
        HttpUrl url = HttpUrl.parse(fromHex(line));
        System.out.println(url == null ? "null" : url.toString());
      }
      return;
    }
    if (args[0].equals("journal")) {
      DiskLruCache journal = DiskLruCache.create(
          FileSystem.SYSTEM, new File(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), 1L << 30);
      int index = Integer.parseInt(args[4]);
      for (Iterator<DiskLruCache.Snapshot> entries = journal.snapshots(); entries.hasNext(); ) {
        try (DiskLruCache.Snapshot entry = entries.next()) {
          byte[] body = Okio.buffer(entry.getSource(index)).readByteArray();
          System.out.println(entry.key() + " " + hex(MessageDigest.getInstance("MD5").digest(body)));
        }
      }
      journal.close();
      return;
    }
    Cache cache = new Cache(new File(args[1]), 1L << 30);
    OkHttpClient.Builder builder = new OkHttpClient.Builder().cache(cache);
    if (args[0].equals("read")) builder.socketFactory(new Offline()).retryOnConnectionFailure(false);
    OkHttpClient client = builder.build();
    for (String line; (line = input.readLine()) != null; ) {
      String url = fromHex(line);
      if (args[0].equals("read")) {
        String forced = call(client, new Request.Builder().url(url).cacheControl(CacheControl.FORCE_CACHE).build());
        String plain = call(client, new Request.Builder().url(url).build());
        System.out.println(forced + " " + plain);
      } else {
        System.out.println(call(client, new Request.Builder().url(url).build()));
      }
    }
    cache.close();
  }
}
