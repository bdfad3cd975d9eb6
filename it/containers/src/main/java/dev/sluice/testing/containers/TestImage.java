package dev.sluice.testing.containers;

import com.github.dockerjava.api.exception.NotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.utility.DockerImageName;

/**
 * A test image built from a directory of {@code it/docker/}: {@code sluice-test/<name>:<content hash of the
 * directory>} ({@link ContentHash}), so the tests of a checkout use the image of its own Dockerfile and a
 * changed Dockerfile is a new tag. Images are only ever built locally ({@code scripts/install-test-deps.sh});
 * one that is missing fails at once with the command that builds it.
 *
 * <pre>{@code
 * TestImage postgres = TestImage.of("postgres").requireBuilt();
 * new GenericContainer<>(postgres.dockerImageName());
 * }</pre>
 *
 * @param name      the directory's name under {@code it/docker/}, and the repository's under {@code sluice-test/}
 * @param directory the image's build context, with its Dockerfile
 * @param tag       {@code sluice-test/<name>:<hash>}
 */
public record TestImage(String name, Path directory, String tag) {

  /** The base image every Dockerfile starts FROM: debootstrap + docker import, by the script only. */
  public static final String BASE_IMAGE = "sluice-test/debian:bookworm";

  /** Where the build of the Maven reactor says the Dockerfiles are (the root pom sets it for every module). */
  static final String IMAGES_PROPERTY = "sluice.test.images";

  /** The image of {@code it/docker/<name>} as checked out now. */
  public static TestImage of(String name) {
    Path dir = imagesRoot().resolve(name);
    if (!Files.isRegularFile(dir.resolve("Dockerfile"))) {
      throw new IllegalArgumentException("no Dockerfile in " + dir + ": the test images are the directories of "
          + imagesRoot());
    }
    return at(dir);
  }

  /** The image of any directory with a Dockerfile (its name is the directory's). */
  public static TestImage at(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    String name = dir.getFileName().toString();
    return new TestImage(name, dir, "sluice-test/" + name + ":" + ContentHash.of(dir));
  }

  public DockerImageName dockerImageName() {
    return DockerImageName.parse(tag);
  }

  /** What builds this image by hand (the script builds them all, and the base image first). */
  public String buildCommand() {
    String build = "docker build -t " + tag + " " + directory;
    return Files.isRegularFile(directory.resolve("pom.xml"))
        ? "mvn -f " + directory.resolve("pom.xml") + " package && " + build
        : build;
  }

  /** This image, once the engine answers and has it; otherwise fails naming the command that builds it. */
  public TestImage requireBuilt() {
    var docker = LocalEngine.client();
    try {
      docker.inspectImageCmd(tag).exec();
      return this;
    } catch (NotFoundException e) {
      boolean base = imageExists(BASE_IMAGE);
      throw new IllegalStateException("the test image " + tag + " is not built (the tests never pull images)."
          + " Build every test image with scripts/install-test-deps.sh"
          + (base ? ", or this one with: " + buildCommand()
                  : " as root: it also makes their base image " + BASE_IMAGE + " with debootstrap"), e);
    }
  }

  private static boolean imageExists(String image) {
    try {
      LocalEngine.client().inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  /** {@code -Dsluice.test.images}, else the nearest {@code it/docker} above the working directory. */
  static Path imagesRoot() {
    String configured = System.getProperty(IMAGES_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isDirectory(d.resolve("it/docker"))) {
        return d.resolve("it/docker");
      }
    }
    throw new IllegalStateException("no it/docker directory above " + Path.of("").toAbsolutePath() + " and no -D"
        + IMAGES_PROPERTY + "=<the checkout's it/docker>");
  }
}
